/* instrument.c - the installed instrument for kernel ops. */
#include "base/instrument.h"

#include <stddef.h>

const pg_instrument *pg__instrument = NULL;

const pg_instrument *pg__instrument_set(const pg_instrument *ins)
{
    const pg_instrument *prev = pg__instrument;

    pg__instrument = ins;
    return prev;
}
