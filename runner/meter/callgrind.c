/*
 * callgrind.c - reading Callgrind's output: the summary of the dump the
 * measuring child made at the end of its region, and the estimated cycles.
 *
 * The cycle estimate is iai-callgrind's (docs/measuring.md "Instruments"):
 * an L1 hit costs 1, a last-level hit 5 and a memory access 35, the weights
 * Callgrind's own KCachegrind formula and iai-callgrind use. It ranks code
 * by simulated cache behaviour; it is not the machine's cycle count.
 */
#include "meter/internal.h"

#include "perfgate/errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const event_names[PG_CG__COUNT] = {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw",
                                                      "ILmr", "DLmr", "DLmw"};

int pg__callgrind_read(pg__callgrind *out, const char *path)
{
    int map[32];
    size_t nev = 0, i;
    char line[4096];
    int have_summary = 0;
    FILE *f = fopen(path, "r");

    memset(out, 0, sizeof(*out));
    if (!f)
        return pg_error_set(PG_EIO, "%s: %s", path, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        char *p, *save = NULL, *tok;
        if (strncmp(line, "events:", 7) == 0) {
            nev = 0;
            for (tok = strtok_r(line + 7, " \t\r\n", &save); tok && nev < 32;
                 tok = strtok_r(NULL, " \t\r\n", &save)) {
                map[nev] = -1;
                for (i = 0; i < PG_CG__COUNT; i++)
                    if (strcmp(tok, event_names[i]) == 0)
                        map[nev] = (int)i;
                out->cache_sim |= map[nev] == PG_CG_D1MR;
                nev++;
            }
        } else if (!have_summary && (strncmp(line, "summary:", 8) == 0 || strncmp(line, "totals:", 7) == 0)) {
            p = strchr(line, ':') + 1;
            for (i = 0, tok = strtok_r(p, " \t\r\n", &save); tok && i < nev;
                 tok = strtok_r(NULL, " \t\r\n", &save), i++)
                if (map[i] >= 0)
                    out->ev[map[i]] = strtoll(tok, NULL, 10);
            have_summary = 1;
        }
    }
    fclose(f);
    if (!nev || !have_summary)
        return pg_error_set(PG_EFORMAT, "%s: no events and summary lines: not a Callgrind output file", path);
    return 0;
}

int64_t pg__callgrind_cycles(const pg__callgrind *c)
{
    int64_t l1_miss = c->ev[PG_CG_I1MR] + c->ev[PG_CG_D1MR] + c->ev[PG_CG_D1MW];
    int64_t ram = c->ev[PG_CG_ILMR] + c->ev[PG_CG_DLMR] + c->ev[PG_CG_DLMW];
    int64_t l1_hits = c->ev[PG_CG_IR] + c->ev[PG_CG_DR] + c->ev[PG_CG_DW] - l1_miss;

    return l1_hits + 5 * (l1_miss - ram) + 35 * ram;
}
