/* region.c - the hooks around the measured region (region.h). */
#include "base/region.h"

#include <stddef.h>

static pg_region_hooks installed;
static int inside;

void pg__region_set(const pg_region_hooks *hooks)
{
    pg_region_hooks none = {NULL, NULL, NULL};

    installed = hooks ? *hooks : none;
    inside = 0;
}

void pg__region_enter(void)
{
    if (!installed.enter || inside)
        return;
    inside = 1;
    installed.enter(installed.payload);
}

void pg__region_leave(void)
{
    if (!installed.leave || !inside)
        return;
    inside = 0;
    installed.leave(installed.payload);
}
