/* Every one of the 133,784,560 seven-card hands through the evaluator's core
 * (eval_core.h), counted by category: the benchmark's part (a) and the exhaustive test's
 * check of the nine known counts. Not part of any wheel: benchmarks/enumerate7.py
 * compiles it with gcc -O3 and reads the nine counts it prints, one a line. */
#include <stdio.h>

#include "eval_core.h"

int main(void)
{
    se_init_tables();
    unsigned long long counts[9] = {0};
    for (int a = 0; a < 52; a++) {
        uint32_t sa[4] = {0, 0, 0, 0};
        sa[a & 3] |= 1u << (a >> 2);
        uint32_t ca = SE_SUIT_BIAS + (1u << ((a & 3) << 2));
        for (int b = a + 1; b < 52; b++) {
            uint32_t sb[4] = {sa[0], sa[1], sa[2], sa[3]};
            sb[b & 3] |= 1u << (b >> 2);
            uint32_t cb = ca + (1u << ((b & 3) << 2));
            for (int c = b + 1; c < 52; c++) {
                uint32_t s_c[4] = {sb[0], sb[1], sb[2], sb[3]};
                s_c[c & 3] |= 1u << (c >> 2);
                uint32_t cc = cb + (1u << ((c & 3) << 2));
                for (int d = c + 1; d < 52; d++) {
                    uint32_t sd[4] = {s_c[0], s_c[1], s_c[2], s_c[3]};
                    sd[d & 3] |= 1u << (d >> 2);
                    uint32_t cd = cc + (1u << ((d & 3) << 2));
                    for (int e = d + 1; e < 52; e++) {
                        uint32_t se[4] = {sd[0], sd[1], sd[2], sd[3]};
                        se[e & 3] |= 1u << (e >> 2);
                        uint32_t ce = cd + (1u << ((e & 3) << 2));
                        for (int f = e + 1; f < 52; f++) {
                            uint32_t sf[4] = {se[0], se[1], se[2], se[3]};
                            sf[f & 3] |= 1u << (f >> 2);
                            uint32_t cf = ce + (1u << ((f & 3) << 2));
                            for (int g = f + 1; g < 52; g++) {
                                uint32_t sg[4] = {sf[0], sf[1], sf[2], sf[3]};
                                sg[g & 3] |= 1u << (g >> 2);
                                counts[se_eval_masks(sg, cf + (1u << ((g & 3) << 2))) >> 20]++;
                            }
                        }
                    }
                }
            }
        }
    }
    for (int i = 0; i < 9; i++) printf("%llu\n", counts[i]);
    return 0;
}
