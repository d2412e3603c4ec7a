#include "index/derived_file.h"

#include <cstddef>
#include <cstring>
#include <memory>

#include "tessera/error.h"
#include "util/crc32c.h"
#include "util/file_util.h"

namespace tessera {
namespace {

struct Header {
  uint64_t magic;
  uint32_t format;
  uint32_t rows;
  uint64_t file_bytes;
  uint32_t declaration_bytes;
  uint32_t body_crc;  // of every byte after the header: a damaged file is never read
  uint32_t crc;       // of the header bytes before it
  uint32_t pad;
};
static_assert(sizeof(Header) == 40, "the file layout");

uint32_t HeaderCrc(const Header& h) { return Crc32c(&h, offsetof(Header, crc)); }

// The mapped file's header when it is kind's, over rows, under declaration, and whole as far as
// the header can tell; null otherwise.
const Header* MatchingHeader(const Region& file, DerivedFileKind kind, uint32_t rows, std::string_view declaration) {
  if (file.size() < sizeof(Header)) return nullptr;
  const auto* h = static_cast<const Header*>(file.data());
  if (h->magic != kind.magic || h->crc != HeaderCrc(*h) || h->format != kind.format || h->file_bytes != file.size()) return nullptr;
  if (h->rows != rows || h->declaration_bytes != declaration.size() || file.size() - sizeof(Header) < declaration.size()) return nullptr;
  if (std::memcmp(static_cast<const char*>(file.data()) + sizeof(Header), declaration.data(), declaration.size()) != 0) return nullptr;
  return h;
}

// The file at path mapped, or null when it cannot be (gone, unreadable): the caller rebuilds.
std::shared_ptr<const Region> Map(const std::string& path) {
  if (!FileExists(path)) return nullptr;
  try {
    return std::make_shared<Region>(Region::MapFile(path));
  } catch (const Error&) {
    return nullptr;
  }
}

}  // namespace

DerivedFileWriter::DerivedFileWriter(DerivedFileKind kind, uint32_t rows, std::string_view declaration) {
  Header h{};
  h.magic = kind.magic;
  h.format = kind.format;
  h.rows = rows;
  h.declaration_bytes = uint32_t(declaration.size());
  file_.append(reinterpret_cast<const char*>(&h), sizeof(h));
  file_.append(declaration);
}

void DerivedFileWriter::Save(const std::string& path) {
  Header h;
  std::memcpy(&h, file_.data(), sizeof(h));
  h.file_bytes = file_.size();
  h.body_crc = Crc32c(file_.data() + sizeof(h), file_.size() - sizeof(h));
  h.crc = HeaderCrc(h);
  std::memcpy(file_.data(), &h, sizeof(h));
  WriteFileAtomic(path, file_);
}

std::optional<BlockReader> OpenDerivedFile(const std::string& path, DerivedFileKind kind, uint32_t rows, std::string_view declaration) {
  std::shared_ptr<const Region> file = Map(path);
  if (!file) return std::nullopt;
  const Header* h = MatchingHeader(*file, kind, rows, declaration);
  if (h == nullptr) return std::nullopt;
  const char* bytes = static_cast<const char*>(file->data());
  if (Crc32c(bytes + sizeof(Header), file->size() - sizeof(Header)) != h->body_crc) return std::nullopt;
  std::string_view whole(bytes, file->size());
  return BlockReader(whole, sizeof(Header) + declaration.size(), std::move(file));
}

bool DerivedFileMatches(const std::string& path, DerivedFileKind kind, uint32_t rows, std::string_view declaration) {
  std::shared_ptr<const Region> file = Map(path);
  return file && MatchingHeader(*file, kind, rows, declaration) != nullptr;
}

}  // namespace tessera
