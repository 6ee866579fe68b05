/*
 * mdp_instance.h -- one MDP of tests/data with its labels and reward
 * structures, read as `warpex check` pairs them: NAME.tra, NAME.lab, then
 * the files NAME*.srew and NAME*.trew (all .srew first, then all .trew,
 * each group by file name), each joining the reward structure of its name.
 * Header-only, for the test programs that check the repository's MDPs
 * against references (test_props_ref, the GPU value iteration's tests).
 */
#ifndef WX_TESTS_MDP_INSTANCE_H
#define WX_TESTS_MDP_INSTANCE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../graph/mdp.h"
#include "../graph/mdp_lab.h"
#include "../util/error.h"

struct mdp_instance {
    char name[128];   /* the folder under tests/data, e.g. "mdp/consensus-N2-K2" */
    struct mdp m;
    struct mdp_labels labels;
    struct mdp_reward_models rew;
    uint8_t *initial; /* the states labelled "init" */
    int loaded;
};

static int mdp_instance_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reward file `file` of dir into the structure of its name. */
static int mdp_instance_reward(struct mdp_instance *in, const char *dir, const char *file, int trew,
                               struct wx_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct mdp_rewards t = {0};
    int rc = trew ? mdp_trew_read(path, &in->m, &t, err) : mdp_srew_read(path, &in->m, &t, err);
    if (rc != WX_OK)
        return rc;
    int j = -1;
    for (size_t k = 0; k < in->rew.n && j < 0; k++) {
        const char *nm = in->rew.models[k].name;
        if (t.name ? nm && !strcmp(nm, t.name) : !nm)
            j = (int)k;
    }
    if (j < 0)
        j = mdp_reward_models_add(&in->rew);
    struct mdp_rewards *r = &in->rew.models[j];
    if (!r->name)
        r->name = t.name, t.name = NULL;
    if (trew)
        r->choice = t.choice, t.choice = NULL;
    else
        r->state = t.state, t.state = NULL;
    mdp_rewards_free(&t);
    return WX_OK;
}

/* The reward files of the instance (.srew first, then .trew, sorted). */
static int mdp_instance_rewards(struct mdp_instance *in, const char *dir, const char *stem,
                                struct wx_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return wx_fail(err, WX_EINPUT, dir, 0, 0, "cannot open the folder");
    char *files[64];
    int nf = 0;
    for (struct dirent *e; (e = readdir(d)) && nf < 64;) {
        const size_t l = strlen(e->d_name);
        if (!strncmp(e->d_name, stem, strlen(stem)) && l > 5 &&
            (!strcmp(e->d_name + l - 5, ".srew") || !strcmp(e->d_name + l - 5, ".trew")))
            files[nf++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(files, (size_t)nf, sizeof *files, mdp_instance_cmp_str);
    int rc = WX_OK;
    for (int pass = 0; pass < 2 && rc == WX_OK; pass++)
        for (int i = 0; i < nf && rc == WX_OK; i++)
            if ((strcmp(files[i] + strlen(files[i]) - 5, ".trew") == 0) == pass)
                rc = mdp_instance_reward(in, dir, files[i], pass, err);
    for (int i = 0; i < nf; i++)
        free(files[i]);
    return rc;
}

/* Reads tests/data/NAME (run from the repository root).  On failure the
 * instance is left for mdp_instance_free. */
static int mdp_instance_load(struct mdp_instance *in, const char *name, struct wx_error *err)
{
    memset(in, 0, sizeof *in);
    snprintf(in->name, sizeof in->name, "%s", name);
    const char *stem = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    char dir[300], path[700];
    snprintf(dir, sizeof dir, "tests/data/%s", name);
    snprintf(path, sizeof path, "%s/%s.tra", dir, stem);
    int rc = mdp_read(path, &in->m, err);
    if (rc == WX_OK) {
        snprintf(path, sizeof path, "%s/%s.lab", dir, stem);
        rc = mdp_labels_read(path, in->m.n_states, &in->labels, err);
    }
    if (rc == WX_OK)
        rc = mdp_instance_rewards(in, dir, stem, err);
    if (rc != WX_OK)
        return rc;
    in->initial = calloc(in->m.n_states ? in->m.n_states : 1, 1);
    const int id = mdp_labels_find(&in->labels, "init");
    for (uint64_t s = 0; s < in->m.n_states; s++)
        in->initial[s] = (uint8_t)mdp_labels_has(&in->labels, id, s);
    in->loaded = 1;
    return WX_OK;
}

static void mdp_instance_free(struct mdp_instance *in)
{
    mdp_free(&in->m);
    mdp_labels_free(&in->labels);
    mdp_reward_models_free(&in->rew);
    free(in->initial);
    memset(in, 0, sizeof *in);
}

#endif
