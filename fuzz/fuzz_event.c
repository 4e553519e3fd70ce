/*
 * fuzz_event.c - libFuzzer target: the event payload GITHUB_EVENT_PATH
 * names, read by both of its readers (pg_post_origin_from_env() for where a
 * run sits, pg_post_trust_from_env() for where a workflow_run job may post),
 * then the trust decisions on what loaded.
 */
#include "fuzz_file.h"
#include "post/post.h"
#include "report/report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("GITHUB_REPOSITORY", "owner/repo", 1);
    setenv("GITHUB_SERVER_URL", "https://github.com", 1);
    setenv("GITHUB_RUN_ID", "1", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_report_origin origin;
    pg_post_trust trust;

    setenv("GITHUB_EVENT_PATH", fuzz_file(data, size), 1);
    if (pg_post_origin_from_env(&origin) == 0)
        pg_report_origin_clear(&origin);
    if (pg_post_trust_from_env(&trust) == 0) {
        (void)pg_post_trust_conclusion(&trust);
        (void)pg_post_trust_check(&trust, "the report", "owner/repo", "owner/fork", 7,
                                  "0123456789abcdef0123456789abcdef01234567");
        pg_post_trust_clear(&trust);
    }
    return 0;
}
