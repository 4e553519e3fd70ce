/*
 * fuzz_report.c - libFuzzer target: the JSON report `perfgate post --from`
 * reads in the trusted workflow_run job. The report is an artifact the pull
 * request's own code wrote, so every byte is hostile: it is parsed by
 * pg_report_doc_parse() and, when it loads, its claims of acceptance by
 * label taken back as post does, rendered the way post renders it
 * (markdown comment, summary line, commit status), written back as JSON,
 * and drawn as the HTML page (`report --from`: the diagnoses' profiles and
 * their flame graphs).
 */
#include "post/post.h"
#include "report/html.h"
#include "report/report.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_report_doc *doc = NULL;

    if (pg_report_doc_parse(&doc, (const char *)data, size, "fuzz.json") == 0) {
        pg_report_options opts = PG_REPORT_OPTIONS_INIT;
        pg_report_data d = {doc->run, doc->cmp, &doc->origin};
        pg_buf out = PG_BUF_INIT, desc = PG_BUF_INIT;
        const char *state = NULL;
        char *summary;

        static FILE *devnull;

        if (!devnull && !(devnull = fopen("/dev/null", "w")))
            abort();
        (void)pg_report_html(devnull, "fuzz", NULL, 0, doc->cmp);
        (void)pg_comparison_unaccept(doc->cmp, PG_ACCEPT_LABEL);
        opts.max_bytes = 4096;
        opts.marker = "<!-- perfgate -->";
        (void)pg_render_markdown(&out, &d, &opts);
        pg__buf_clear(&out);
        (void)pg_render_json(&out, &d, &opts);
        pg__buf_clear(&out);
        summary = pg_post_summary_text(&d);
        free(summary);
        (void)pg_post_status_for(&state, &desc, doc->cmp);
        pg__buf_clear(&desc);
    }
    pg_report_doc_free(doc);
    return 0;
}
