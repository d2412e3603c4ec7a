#include "storage/directory_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "storage/file_names.h"
#include "tessera/error.h"
#include "util/file_util.h"

namespace tessera {
namespace {

// errno's text, for the message of a failed stat or access.
std::string Why() { return std::strerror(errno); }

// A directory's parent as the path spells it ("a/b" -> "a", "a" -> ".", "/a" -> "/").
std::string Parent(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A missing store directory is created with its missing parents: the nearest ancestor that exists
// must be a directory this process may add to.
void CheckCreatable(const std::string& dir) {
  std::string ancestor = dir;
  struct stat st;
  do {
    ancestor = Parent(ancestor);
    if (::stat(ancestor.c_str(), &st) == 0) break;
    if (errno != ENOENT) throw BadRequest("cannot create the store directory " + dir + ": " + ancestor + ": " + Why());
  } while (ancestor != "." && ancestor != "/");
  if (!S_ISDIR(st.st_mode)) throw BadRequest("cannot create the store directory " + dir + ": " + ancestor + " is not a directory");
  if (::access(ancestor.c_str(), W_OK | X_OK) != 0)
    throw BadRequest("cannot create the store directory " + dir + ": " + ancestor + " is not writable (" + Why() + ")");
}

}  // namespace

void CheckStoreDirectory(const std::string& dir, bool write) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) throw BadRequest("cannot use the store directory " + dir + ": " + Why());
    if (write) CheckCreatable(dir);
    return;  // nothing to read: the missing header says so
  }
  if (!S_ISDIR(st.st_mode)) throw BadRequest(dir + " is not a directory; a store is a directory");
  if (::access(dir.c_str(), R_OK | X_OK) != 0) throw BadRequest("cannot read the store directory " + dir + ": " + Why());
  if (write && ::access(dir.c_str(), W_OK) != 0)
    throw BadRequest("cannot write the store directory " + dir + ": " + Why() + "; a read-only open can serve it");
  for (const std::string& name : ListDir(dir)) {
    std::string path = dir + "/" + name;
    bool written = path == WalPath(dir) || path == LockPath(dir);  // a writer appends to the log and rewrites the lock
    if (!written && !IsSegmentFileName(name) && path != HeaderPath(dir) && path != ManifestPath(dir)) continue;  // not ours
    bool writes = write && written;
    // A writer beside this open renames and sweeps files: one gone since the listing is no fault.
    if (::access(path.c_str(), writes ? R_OK | W_OK : R_OK) != 0 && errno != ENOENT)
      throw BadRequest(std::string("cannot ") + (writes ? "write " : "read ") + path + ": " + Why());
  }
}

}  // namespace tessera
