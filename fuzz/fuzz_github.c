/*
 * fuzz_github.c - libFuzzer target: GitHub's answers as the client reads
 * them. The input is a header block, an empty line, then a body: the
 * headers go through the client's header reader (Link rel="next",
 * Location, rate-limit hints); the body through every reader of a body
 * (error message, pull request list, comment list, labels, issue events,
 * issue list, artifact list page) and, as an artifact download, through the
 * zip reader.
 */
#include "post/artifacts.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int devnull = -1;
    const char *text = (const char *)data, *sep = NULL;
    pg_gh_response r;
    pg__gh_hints hints;
    pg_artifact best;
    size_t hlen = size, seen = 0, ok = 0, i;
    int64_t other = 0;
    char other_sha[48], *entry = NULL;
    pg_issue *issues = NULL;
    size_t nissues = 0;

    if (devnull < 0 && (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        abort();
    for (i = 0; i + 1 < size; i++)
        if (text[i] == '\n' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && i + 2 < size && text[i + 2] == '\n'))) {
            sep = text + i;
            break;
        }
    if (sep)
        hlen = (size_t)(sep - text);
    memset(&r, 0, sizeof(r));
    pg__gh_read_headers(&r, &hints, text, hlen);
    r.status = size ? 400 + data[0] % 200 : 200;
    r.len = sep ? size - hlen : 0;
    r.body = malloc(r.len + 1);
    if (!r.body)
        abort();
    memcpy(r.body, sep ? sep : "", r.len);
    r.body[r.len] = '\0';
    (void)pg__gh_status_error(&r, "fuzzing");
    (void)pg__trust_match_head(r.body, "0123456789abcdef0123456789abcdef01234567", &other, other_sha,
                               sizeof(other_sha));
    (void)pg__post_find_comment(r.body, "<!-- perfgate -->", "github-actions[bot]");
    (void)pg__post_label_listed(r.body, "perf-accepted");
    {
        char *actor = NULL;
        (void)pg__post_label_actor(&actor, r.body, "perf-accepted");
        free(actor);
    }
    (void)pg__issues_take(&issues, &nissues, r.body, "<!-- perfgate-regression key=", "github-actions[bot]");
    pg_issues_free(issues, nissues);
    memset(&best, 0, sizeof(best));
    (void)pg__artifact_page(&best, &seen, &ok, r.body, "perfgate-db", "main");
    pg_artifact_clear(&best);
    if (pg_zip_extract_single(&entry, devnull, (const unsigned char *)r.body, r.len) == 0)
        free(entry);
    pg_gh_response_clear(&r);
    return 0;
}
