// Placeholder until the frontend lands; replaced by the croq CLI.
#include <cstdio>
int main() { std::puts("croq: not built yet"); return 1; }
