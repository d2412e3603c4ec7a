// Errors carry the HTTP status the spec assigns, so callers map them without parsing text.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {

enum class Status : int {
  kBadRequest = 400,
  kForbidden = 403,
  kNotFound = 404,
  kConflict = 409,
  kCancelled = 499,
  kInternal = 500,
  kUnavailable = 503,
  kInsufficientStorage = 507,
};

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

// A refused open setting (an ANN or quantization knob): 400 with the message "<setting> <problem>".
// The parts are kept apart so a front end can name the setting as its user spelled it (--ef-search
// on the command line, efSearch in the library) around the core's one wording of the problem.
class SettingError : public Error {
 public:
  SettingError(const std::string& setting, const std::string& problem)
      : Error(Status::kBadRequest, setting + " " + problem), setting_(setting), problem_(problem) {}
  const std::string& setting() const { return setting_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string setting_, problem_;
};

// A call needed the rows of collections this store holds no files of (StoreOptions::resident):
// 503, with their names kept apart so the caller can fetch them, make them resident and ask again.
class NotResidentError : public Error {
 public:
  explicit NotResidentError(std::vector<std::string> collections)
      : Error(Status::kUnavailable, Message(collections)), collections_(std::move(collections)) {}
  const std::vector<std::string>& collections() const { return collections_; }

 private:
  static std::string Message(const std::vector<std::string>& names) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "'" : ", '") + n + "'";
    return "collection " + list + " is not held by this instance (its files are fetched on first use); retry";
  }
  std::vector<std::string> collections_;
};

inline Error BadRequest(const std::string& m) { return Error(Status::kBadRequest, m); }
inline Error NotFound(const std::string& m) { return Error(Status::kNotFound, m); }
inline Error Internal(const std::string& m) { return Error(Status::kInternal, m); }

}  // namespace tessera
