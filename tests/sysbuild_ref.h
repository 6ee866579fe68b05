/*
 * sysbuild_ref.h -- a sequential reference of the build_system request
 * (analysis/sysbuild.h) for the tests: test_mdpcheck.c hands it to
 * mdpcheck as a backend, tests/gpu/test_gpu_mdp.c compares
 * valiter_system_dev with it.
 */
#ifndef WX_TEST_SYSBUILD_REF_H
#define WX_TEST_SYSBUILD_REF_H

#include <stdint.h>
#include <stdlib.h>

#include "../analysis/sysbuild.h"

/* The reference of mdpcheck.h's build_system (valiter_system_dev):
 * relevant_restrict's cut and numbering, then mdpcheck_system.c's loops,
 * written out sequentially on q's host arrays. */
static void ref_system(const struct mdp *m, struct mdpcheck_sysbuild *q)
{
    const uint64_t n = m->n_states;
    uint32_t *queue = malloc(n * sizeof *queue);
    uint64_t head = 0, tail = 0, k = 0, nc = 0, ne = 0;
    if (!queue && n)
        return; /* out of memory: built stays 0 */
    if (q->initial) {
        for (uint64_t s = 0; s < n; s++)
            if (q->cls[s] == q->cls_maybe)
                q->cls[s] = q->cls_skip;
        for (uint64_t s = 0; s < n; s++)
            if (q->initial[s] && q->cls[s] == q->cls_skip)
                q->cls[s] = q->cls_maybe, queue[tail++] = (uint32_t)s;
        while (head < tail) {
            uint32_t s = queue[head++];
            for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++)
                for (uint64_t e = m->choice_start[c]; (!q->ok || q->ok[c]) && e < m->choice_start[c + 1]; e++)
                    if (q->cls[m->targets[e]] == q->cls_skip)
                        q->cls[m->targets[e]] = q->cls_maybe, queue[tail++] = m->targets[e];
        }
    }
    for (uint64_t s = 0; s < n; s++)
        q->loc[s] = q->cls[s] == q->cls_maybe ? (q->back[k] = (uint32_t)s, (uint32_t)k++) : UINT32_MAX;
    q->n_maybe = k;
    q->sys.state_start[0] = q->sys.choice_start[0] = 0;
    for (uint64_t i = 0; i < k; i++) {
        uint32_t s = q->back[i];
        for (uint64_t c = m->state_start[s]; c < m->state_start[s + 1]; c++) {
            if (q->ok && !q->ok[c])
                continue;
            double b = 0;
            if (q->is_reward && q->rew) {
                b += q->rew->state ? q->rew->state[s] : 0;
                b += q->rew->choice ? q->rew->choice[c] : 0;
            }
            for (uint64_t e = m->choice_start[c]; e < m->choice_start[c + 1]; e++) {
                uint32_t t = m->targets[e];
                if (q->cls[t] == q->cls_maybe)
                    q->sys.targets[ne] = q->loc[t], q->sys.probs[ne++] = m->probs[e];
                else if (q->cls[t] == q->cls_yes && !q->is_reward)
                    b += m->probs[e];
            }
            q->sys.b[nc] = b;
            q->sys.choice_start[++nc] = ne;
        }
        if (nc == q->sys.state_start[i] && q->no_choice == UINT64_MAX)
            q->no_choice = i;
        q->sys.state_start[i + 1] = nc;
    }
    q->sys.n_states = k, q->sys.n_choices = nc, q->sys.n_entries = ne;
    q->built = 1;
    free(queue);
}

#endif
