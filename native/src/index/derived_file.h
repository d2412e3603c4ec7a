// The frame of every file derived from a sealed segment's rows besides its vector indexes (text
// postings, filter indexes, id index; names in storage/file_names.h): a header holding the kind's
// magic and format version, the segment rows the file covers, the size of the declaration it was
// built under, the file's size, a CRC of everything after the header and a CRC of the header;
// then the declaration (bytes the kind defines, compared exactly) and the body (util/block_io.h).
// Written through a .tmp name, fsync and rename, so a crash leaves the old file or the new one.
// Opened by mmap: a file that is missing, damaged, of another kind or format, or built over other
// rows or under another declaration opens as nothing, and the caller rebuilds the structure.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/block_io.h"

namespace tessera {

struct DerivedFileKind {
  uint64_t magic;
  // Bumped whenever the body's layout or meaning changes (for text postings, the analyzer's output).
  uint32_t format;
};

class DerivedFileWriter {
 public:
  DerivedFileWriter(DerivedFileKind kind, uint32_t rows, std::string_view declaration);
  // Where the structure writes its body.
  BlockWriter& body() { return body_; }
  // Fills in the sizes and CRCs and writes the file durably at path.
  void Save(const std::string& path);

 private:
  std::string file_;
  BlockWriter body_{&file_};
};

// A reader of the body of the file at path, or nullopt (see above). Its views keep the mapping alive.
std::optional<BlockReader> OpenDerivedFile(const std::string& path, DerivedFileKind kind, uint32_t rows, std::string_view declaration);

// Whether path holds kind's file over rows under declaration, judged by its header alone (the body
// is not read): whether a structure held in memory still has to be saved.
bool DerivedFileMatches(const std::string& path, DerivedFileKind kind, uint32_t rows, std::string_view declaration);

}  // namespace tessera
