// lemon_mmc.cc -- benchmark peer (not product code): LEMON's HowardMmc on a
// DIMACS cycle-mean file ("p [NAME] N M", "a U V W", 1-based; transit
// columns ignored), for bench/bench_cm_cpu.sh and the GPU benchmark.
//
//   lemon_mmc FILE [--max]
// prints one line
//   lemon N M FRACTION read_s solve_s
// where FRACTION is the minimum (or, --max, maximum) cycle mean as a reduced
// fraction num/den ("none" for an acyclic graph) and solve_s times HowardMmc's
// findCycleMean() + findCycle() only.  Costs are long long, so LEMON's
// LargeCost is long long too (exact for the weights the generator writes).
// Build: g++ -O2 -static lemon_mmc.cc -o lemon_mmc -llemon
#include <lemon/howard_mmc.h>
#include <lemon/smart_graph.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

using namespace lemon;

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: lemon_mmc FILE.dimacs [--max]\n");
        return 2;
    }
    bool maximize = argc > 2 && !std::strcmp(argv[2], "--max");
    double t0 = now();
    FILE *f = std::fopen(argv[1], "r");
    if (!f) {
        std::perror(argv[1]);
        return 2;
    }
    static char line[1 << 16];
    long long n = -1, m = 0;
    std::vector<int> src, dst;
    std::vector<long long> w;
    while (std::fgets(line, sizeof line, f)) {
        if (line[0] == 'p') {
            char *p = line + 1;
            while (*p == ' ' || *p == '\t') p++;
            if (!(*p >= '0' && *p <= '9')) // NAME
                while (*p && *p != ' ' && *p != '\t') p++;
            n = std::strtoll(p, &p, 10);
            m = std::strtoll(p, &p, 10);
            src.reserve(m), dst.reserve(m), w.reserve(m);
        } else if (line[0] == 'a') {
            char *p = line + 1;
            long u = std::strtol(p, &p, 10), v = std::strtol(p, &p, 10);
            long long c = std::strtoll(p, &p, 10);
            src.push_back((int)u - 1), dst.push_back((int)v - 1), w.push_back(maximize ? -c : c);
        }
    }
    std::fclose(f);
    if (n < 0) {
        std::fprintf(stderr, "%s: no 'p' line\n", argv[1]);
        return 2;
    }
    SmartDigraph g;
    g.reserveNode((int)n);
    g.reserveArc((int)src.size());
    std::vector<SmartDigraph::Node> nodes(n);
    for (long long i = 0; i < n; i++) nodes[i] = g.addNode();
    SmartDigraph::ArcMap<long long> cost(g);
    for (size_t e = 0; e < src.size(); e++) cost[g.addArc(nodes[src[e]], nodes[dst[e]])] = w[e];
    double t1 = now();
    HowardMmc<SmartDigraph, SmartDigraph::ArcMap<long long>> mmc(g, cost);
    bool found = mmc.findCycleMean() == HowardMmc<SmartDigraph,
                 SmartDigraph::ArcMap<long long>>::OPTIMAL && mmc.findCycle();
    double t2 = now();
    if (!found) {
        std::printf("lemon %lld %zu none %.3f %.3f\n", n, src.size(), t1 - t0, t2 - t1);
        return 0;
    }
    long long num = mmc.cycleCost(), den = mmc.cycleSize();
    if (maximize) num = -num;
    long long gg = std::gcd(num < 0 ? -num : num, den);
    num /= gg, den /= gg;
    if (den == 1)
        std::printf("lemon %lld %zu %lld %.3f %.3f\n", n, src.size(), num, t1 - t0, t2 - t1);
    else
        std::printf("lemon %lld %zu %lld/%lld %.3f %.3f\n", n, src.size(), num, den, t1 - t0,
                    t2 - t1);
    return 0;
}
