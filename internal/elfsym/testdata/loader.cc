// A C++ method, for the demangling test (elfsym_test.go).
#include <cstdio>

namespace app {
struct TextureLoader {
	__attribute__((noinline)) int load(int x);
};
int TextureLoader::load(int x) { return x * 7 + 3; }
} // namespace app

int main(int argc, char **) {
	app::TextureLoader l;
	std::printf("%d\n", l.load(argc));
	return 0;
}
