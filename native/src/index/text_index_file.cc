// The full-text postings of a sealed segment as a file (seg-N.text): the derived-file frame around
// the segment's chunk list, each chunk its row range and its fields' arrays (FieldPostings::Layout).
#include "index/derived_file.h"
#include "index/text_index.h"
#include "storage/segment.h"
#include "util/byte_io.h"

namespace tessera {
namespace {

// "TSPOSTNG"; the format goes up with any change to the layout or to what the analyzer produces
// (tokenizing, folding, stopwords, stemming), since saved postings hold its output.
constexpr DerivedFileKind kTextFile{0x474e54534f505354, 1};

// What the postings depend on: per field, in order, the attribute and the analyzer's options.
std::string Declaration(const std::vector<FtsField>& fields) {
  std::string d;
  for (const FtsField& f : fields) {
    PutBytes(&d, f.field);
    PutFixed<uint8_t>(&d, f.ascii_folding ? 1 : 0);
    PutFixed<uint32_t>(&d, f.max_token_len);
  }
  return d;
}

// Whether chunks read from a file cover rows [0, rows) in order with one FieldPostings per field
// and arrays of the lengths the rows and terms imply (the CRC vouches for the rest).
bool Consistent(const std::vector<TextChunkPtr>& chunks, uint32_t rows, size_t fields) {
  uint32_t next = 0;
  for (const TextChunkPtr& c : chunks) {
    if (c->begin() != next || c->end() <= c->begin() || c->fields() != fields) return false;
    for (size_t f = 0; f < fields; ++f) {
      const FieldPostings& p = c->field(f);
      size_t terms = p.terms.size();
      if (p.doc_len.size() != c->end() - c->begin() || p.term_start.size() != terms + 1 || p.term_positions.size() != terms + 1 ||
          p.block_start.size() != terms + 1 || p.max_tf.size() != terms || p.min_dl.size() != terms ||
          p.surface_term.size() != p.surfaces.size() || p.tfs.size() != p.docs.size())
        return false;
    }
    next = c->end();
  }
  return next == rows;
}

}  // namespace

SegmentTextPtr SegmentText::Open(const std::string& path, const Segment& segment, const std::vector<FtsField>& fields) {
  std::optional<BlockReader> body = OpenDerivedFile(path, kTextFile, segment.appended(), Declaration(fields));
  if (!body) return nullptr;
  auto text = std::make_shared<SegmentText>();
  try {
    uint64_t count = 0;
    (*body)(count);
    for (uint64_t i = 0; i < count && !body->done(); ++i) {
      auto chunk = std::make_shared<TextChunk>();
      (*body)(*chunk);
      chunk->MeasureBytes();
      text->chunks_.push_back(std::move(chunk));
    }
  } catch (const Error&) {
    return nullptr;  // a layout that runs past the file: rebuilt like a damaged one
  }
  if (!body->done() || !Consistent(text->chunks_, segment.appended(), fields.size())) return nullptr;
  return text;
}

void SegmentText::Save(const std::string& path, const Segment& segment, const std::vector<FtsField>& fields) const {
  DerivedFileWriter file(kTextFile, segment.appended(), Declaration(fields));
  file.body()(uint64_t(chunks_.size()));
  for (const TextChunkPtr& chunk : chunks_) file.body()(*chunk);
  file.Save(path);
}

bool SegmentText::Saved(const std::string& path, const Segment& segment, const std::vector<FtsField>& fields) {
  return DerivedFileMatches(path, kTextFile, segment.appended(), Declaration(fields));
}

}  // namespace tessera
