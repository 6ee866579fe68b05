/*
 * usage.c -- the usage text of warpex and of each command, in one place.
 *
 * `warpex help`, `warpex --help` and `-h` print the overview; `warpex help
 * COMMAND`, `warpex COMMAND --help` and `warpex COMMAND -h` print that
 * command's text.  Each text names every option its parser accepts, in a
 * line or two; docs/usage.md is the complete reference (tests/t_help.sh
 * checks that every option documented there appears here).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char overview[] =
    "usage: warpex COMMAND [OPTIONS] FILE\n"
    "\n"
    "commands:\n"
    "  explore FILE             explore the reachable state space of a network\n"
    "                           (.exp, .aut or .gpf); checks, outputs, analyses\n"
    "  info FILE                print the flattened network and its encoding\n"
    "  convert FILE --to aut|gpf OUT\n"
    "                           write the product LTS (aut) or the compiled\n"
    "                           network in GPUexplore's format (gpf)\n"
    "  scc GRAPH                strongly connected components of a graph\n"
    "  mec FILE                 maximal end components of an MDP (or an LTS)\n"
    "  check MODEL --prop P     PRISM's P and R properties of a PRISM or Storm\n"
    "                           model, with sound bounds\n"
    "  cycle-mean FILE          exact minimum/maximum cycle mean (or ratio) and\n"
    "                           a critical cycle of a weighted graph\n"
    "  help [COMMAND]           this text, or COMMAND's options\n"
    "  --version                the version\n"
    "\n"
    "'warpex COMMAND --help' lists the options of COMMAND; docs/usage.md has\n"
    "every option in full.\n"
    "\n"
    "exit codes: 0 ok, 1 property violated, 2 usage or input error (also\n"
    "            --backend gpu without a usable GPU), 3 resource limit hit,\n"
    "            4 system, device or write error,\n"
    "            130/143 interrupted by SIGINT/SIGTERM (128 + signal)\n";

/* The network options shared by explore, info and convert. */
#define NETWORK_OPTIONS                                                          \
    "network options:\n"                                                         \
    "  --hidden STR             the hidden label (default i; tau for mCRL2)\n"   \
    "  --rate, --prob           labels 'rate ...' / 'prob ...' always interleave\n" \
    "  --case                   no upper-case folding of LOTOS/CCS/CSP labels\n" \
    "  -v, --verbose            verbose (e.g. duplicate .aut lines dropped)\n"   \
    "  --quiet, -q              no progress lines or notices on stderr\n"

static const char explore_text[] =
    "usage: warpex explore FILE [OPTIONS]\n"
    "Explores the reachable state space of FILE (.exp, .aut or .gpf).\n"
    "Started by mpirun with R >= 2 ranks: they explore it together (docs/distributed.md).\n"
    "\n"
    "  --backend auto|gpu|cpu|seq  auto (default): the GPU when usable, else cpu\n"
    "  --threads N              cpu backend threads, 0 to 256 (default 0: all cores)\n"
    "  --memory SIZE            state-table budget, e.g. 8G (default: half of RAM)\n"
    "  --store flat|tree|auto   CPU state storage; tree: compressed, slower\n"
    "                           (default auto: flat; docs/storage.md)\n"
    "checks (exit 1 when violated):\n"
    "  --deadlock               a reachable state without successors\n"
    "  --action REGEX           a reachable transition whose label matches REGEX\n"
    "  --stop-at-first          stop at the first violation even when outputs or\n"
    "                           analyses are asked for\n"
    "  --trace, --trace-states  a shortest trace to the violation (with vectors)\n"
    "  --por                    partial-order reduction (seq, cpu, gpu; with --action\n"
    "                           seq, cpu): explores a reduced\n"
    "                           graph that keeps deadlocks and --action's labels;\n"
    "                           counts are the reduced graph's\n"
    "  --livelock               a reachable cycle of hidden steps (lasso trace)\n"
    "  --reversible             every state can return to the initial state\n"
    "outputs and analyses (after a complete exploration):\n"
    "  --aut FILE, --csr FILE   the product LTS as .aut / warpex CSR binary\n"
    "  --scc, --scc-out FILE    SCC decomposition; each state's SCC id\n"
    "  --mec, --mec-out FILE    maximal end components; each state's MEC id\n"
    "  --cycle-mean min|max --weight REGEX [--default-weight W]\n"
    "                           exact cycle mean, weights from the labels\n"
    "  --json                   one JSON object on stdout\n"
    "probabilistic networks:\n"
    "  --mdp-out BASE           write BASE.tra / BASE.lab (/ .trew)\n"
    "  --prop P, --props FILE   check Pmin/Pmax/Rmin/Rmax on the explored MDP\n"
    "  --epsilon E              precision of the bounds (default 1e-6)\n"
    "  --method auto|ii|ovi|pi  how --prop is solved (default auto, as check)\n"
    "  --reward [NAME:]REGEX=VALUE  action rewards (repeatable)\n"
    "GPU options:\n"
    "  -b N, --blocks N         blocks;  -t N, --gpu-threads N  threads per block\n"
    "  -k N, --iterations N     iterations per kernel launch\n"
    "  --hash-memory SIZE       hash table size;  --probe-bound N  probe bound\n"
    "  --no-textures            plain loads instead of texture reads\n"
    "  --compact-slots          3-word vectors in 12-byte slots (denser, slower)\n"
    NETWORK_OPTIONS
    "\n"
    "Details: docs/usage.md#warpex-explore\n";

static const char info_text[] =
    "usage: warpex info FILE [OPTIONS]\n"
    "Prints the flattened network of FILE (.exp, .aut or .gpf): components,\n"
    "synchronisation rules, the state-vector layout and the image's tables.\n"
    "\n"
    NETWORK_OPTIONS
    "\n"
    "Details: docs/usage.md#warpex-info\n";

static const char convert_text[] =
    "usage: warpex convert FILE [--to aut|gpf] OUT [OPTIONS]\n"
    "Without --to, OUT's extension (.aut or .gpf) chooses.\n"
    "  --to aut                 explore FILE and write the product LTS to OUT\n"
    "                           (takes the explore options, e.g. --backend)\n"
    "  --to gpf                 write the compiled network in GPUexplore's .gpf\n"
    "                           format (no exploration)\n"
    NETWORK_OPTIONS
    "\n"
    "Details: docs/usage.md#warpex-convert\n";

static const char scc_text[] =
    "usage: warpex scc GRAPH [OPTIONS]\n"
    "Strongly connected components of GRAPH (.csr, .aut, .mtx, PRISM .tra,\n"
    "else an edge list 'U V' per line).\n"
    "\n"
    "  --scc-out FILE           each vertex's SCC id, one per line (canonical)\n"
    "  --backend auto|gpu|cpu   auto (default): the GPU when usable, else Tarjan\n"
    "  --json                   one JSON object on stdout\n"
    "  --quiet, -q              no notices on stderr\n"
    "\n"
    "Details: docs/usage.md#warpex-scc\n";

static const char mec_text[] =
    "usage: warpex mec FILE [OPTIONS]\n"
    "Maximal end components of a PRISM .tra MDP or DTMC, or of an LTS or graph\n"
    "in any format 'warpex scc' reads (one probability-1 choice per edge).\n"
    "\n"
    "  --mec-out FILE           each state's MEC id, or -1, one per line\n"
    "  --backend auto|gpu|cpu   auto (default): the GPU when usable, else the CPU\n"
    "  --json                   one JSON object on stdout\n"
    "  --quiet, -q              no notices on stderr\n"
    "\n"
    "Details: docs/usage.md#warpex-mec\n";

static const char check_text[] =
    "usage: warpex check MODEL (--prop P | --props FILE) [OPTIONS]\n"
    "Min/max reachability, step-bounded and invariance probabilities and\n"
    "expected rewards of a PRISM explicit (MODEL.tra) or Storm (MODEL.drn) MDP\n"
    "or DTMC, with sound bounds.  P>=p, P<p, ... answer true (exit 0), false\n"
    "(exit 1) or, when p lies within the value's interval, undecided (exit 3).\n"
    "\n"
    "  --prop P                 a property (repeatable), e.g. 'Pmax=? [ F \"goal\" ]',\n"
    "                           'P>=0.9 [ F<=10 \"goal\" ]', 'Pmin=? [ G !\"bad\" ]',\n"
    "                           'R{\"time\"}max=? [ C<=100 ]'\n"
    "  --props FILE             properties, one per line\n"
    "  --lab FILE               labels of a .tra model\n"
    "  --srew FILE, --trew FILE state / transition rewards (repeatable)\n"
    "  --sta FILE               state valuations, printed next to values\n"
    "  --method auto|ii|ovi|svi|pi|topological|vi  the fastest expected (default;\n"
    "                           ovi, on the CPU with gs; with --solver: ii), interval\n"
    "                           iteration, optimistic VI, sound VI (CPU),\n"
    "                           certified policy iteration, SCC by SCC, plain VI\n"
    "                           (unsound)\n"
    "  --solver jacobi|gs|inplace  sweep kind (default jacobi)\n"
    "  --epsilon E              precision (default 1e-6);  --relative  relative\n"
    "  --max-iterations N       sweeps allowed per solve (default 1000000)\n"
    "  --threads N              CPU threads, 0 to 256 (default 0: all cores)\n"
    "  --backend auto|cpu|gpu   auto (default): the GPU when usable\n"
    "  --gpu-memory SIZE        device memory for topological solving\n"
    "  --values FILE            every state's value and bounds\n"
    "  --scheduler FILE         an optimal memoryless scheduler\n"
    "  --all-states             bounds within epsilon at every state, not only\n"
    "                           at the initial states (--values, --scheduler imply it)\n"
    "  --json                   one JSON object on stdout\n"
    "  --quiet, -q              no notes on stderr\n"
    "\n"
    "Details: docs/usage.md#warpex-check, docs/valiter.md\n";

static const char cycle_text[] =
    "usage: warpex cycle-mean FILE [OPTIONS]\n"
    "Exact minimum (default) or maximum cycle mean of a weighted graph (DIMACS,\n"
    "edge list 'U V W [T]', .csr with weights, .aut with --weight) and a\n"
    "critical cycle.\n"
    "\n"
    "  --min, --max             minimum (default) or maximum\n"
    "  --ratio                  cycle ratio weight / transit time\n"
    "  --weight REGEX           .aut/.csr labels: weight = first capture group\n"
    "  --default-weight W       weight of labels REGEX does not match (default 0)\n"
    "  --per-scc                the optimum of every SCC\n"
    "  --algorithm howard|karp  Howard (default) or Karp (CPU only)\n"
    "  --backend auto|cpu|gpu   auto (default): the GPU when usable\n"
    "  --cycle-out FILE         the critical cycle's vertices, one per line\n"
    "  --json                   one JSON object on stdout\n"
    "  --quiet, -q              no notices on stderr\n"
    "\n"
    "Details: docs/usage.md#warpex-cycle-mean\n";

static const char help_text[] =
    "usage: warpex help [COMMAND]\n"
    "Prints the overview of warpex, or the options of COMMAND (explore, info,\n"
    "convert, scc, mec, check, cycle-mean, help); the same as\n"
    "'warpex COMMAND --help'.\n"
    "\n"
    "Details: docs/usage.md\n";

static const struct {
    const char *command, *text;
} texts[] = {
    {"explore", explore_text}, {"info", info_text},   {"convert", convert_text},
    {"scc", scc_text},         {"mec", mec_text},     {"check", check_text},
    {"cycle-mean", cycle_text}, {"help", help_text},
};

int cli_usage(const char *command, FILE *out)
{
    if (!command) {
        fputs(overview, out);
        return 0;
    }
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (!strcmp(command, texts[i].command)) {
            fputs(texts[i].text, out);
            return 0;
        }
    return -1;
}

int cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}
