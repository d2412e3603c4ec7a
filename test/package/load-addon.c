// Loads a Node-API addon as Node does (dlopen, every symbol bound at once) after a library of
// stand-ins for the Node-API functions Node itself would export, then looks up the addon's entry
// point. Cross-built for arm64 and run under qemu, it shows the arm64 prebuild loads against an
// aarch64 glibc with nothing else installed; nothing calls the stand-ins.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: load-addon NAPI_STANDINS.so FILE.node\n");
    return 2;
  }
  void* addon = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) ? dlopen(argv[2], RTLD_NOW) : NULL;
  if (!addon) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  if (!dlsym(addon, "napi_register_module_v1")) {
    fprintf(stderr, "no napi_register_module_v1: %s\n", dlerror());
    return 1;
  }
  printf("loaded, napi_register_module_v1 found\n");
  return 0;
}
