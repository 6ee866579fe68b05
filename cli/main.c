/* Placeholder until the front end and explorers land (the real CLI is in cli/pending/). */
#include <stdio.h>
int main(void) { puts("warpex"); return 0; }
