/* A program with known functions at known lines (elfsym_test.go). */
#include <stdio.h>

static int __attribute__((noinline)) helper_static(int x) {
	return x * 3 + 1; /* line 5 */
}

int __attribute__((noinline)) exported_function(int x) {
	return helper_static(x) + 2; /* line 9 */
}

int main(int argc, char **argv) {
	(void)argv;
	printf("%d\n", exported_function(argc));
	return 0;
}
