/* Placeholder: the real CLI lands with the explorers. */
#include <stdio.h>
int main(void) { puts("warpex"); return 0; }
