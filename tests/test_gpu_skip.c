/*
 * test_gpu_skip.c -- `make test` runs on machines without a GPU (CI): check
 * that the GPU backend says so cleanly (gpu_available() == 0 and
 * explore_gpu() returns WX_EINPUT with a message, no crash).  That is the
 * property its PASS line claims; the GPU suite itself (bench/gpu_test.sh,
 * `make gpu-test`) does not run here, which a "note:" line (not counted)
 * says.  On a machine with a GPU it instead explores a two-state image and
 * checks the counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../explorer/explore.h"
#include "check.h"

int main(void)
{
    /* one component, states 0 -a-> 1 */
    uint32_t first_bit[2] = {0, 1}, comp_states[1] = {2}, proc_offsets[2] = {0, 3};
    uint32_t state_offsets[3] = {0, 1, 1}, state_bits[1] = {2};
    uint64_t trans[1] = {(uint64_t)(1 + 1) << (1 + 1)}; /* local, label 0, target 1 */
    struct image img;
    memset(&img, 0, sizeof img);
    img.n_comps = 1;
    img.n_labels = 1;
    img.hidden = UINT32_MAX;
    img.words = 1;
    img.first_bit = first_bit;
    img.comp_states = comp_states;
    img.proc_offsets = proc_offsets;
    img.state_offsets = state_offsets;
    img.trans = trans;
    img.n_entries = 1;
    img.act_bits = 1;
    img.state_bits = state_bits;
    img.mask_words = 1;

    char name[128] = "unset";
    const int avail = gpu_available(name, sizeof name);
    struct explore_options opt;
    memset(&opt, 0, sizeof opt);
    struct explore_result res;
    memset(&res, 0, sizeof res);
    struct wx_error err;
    wx_error_clear(&err);
    const int rc = explore_gpu(&img, &opt, &res, &err);
    if (!avail) {
        check(name[0] == '\0' && rc == WX_EINPUT && err.code == WX_EINPUT && err.msg[0] != '\0',
              "gpu: GPU absent is handled cleanly (gpu_available()=0, explore_gpu -> exit code %d: \"%s\")",
              rc, err.msg);
        printf("note: no GPU here: the GPU test suite did not run (run `make gpu-test` or "
               "bench/gpu_test.sh on a GPU machine)\n");
    } else {
        check(rc == WX_OK && res.complete && res.states == 2 && res.transitions == 1 && res.deadlocks == 1,
              "gpu: device %s explores a two-state image (rc %d %s, states %llu, transitions %llu)", name, rc,
              err.msg, (unsigned long long)res.states, (unsigned long long)res.transitions);
        free(res.vectors);
    }
    return check_exit();
}
