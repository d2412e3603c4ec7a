// The N-API binding: converts arguments, runs core calls on worker threads, and maps core errors
// to JS errors carrying the spec's status. No store logic lives here.
#include <napi.h>

#include <functional>
#include <memory>
#include <mutex>

#include "tessera/cancel.h"
#include "tessera/error.h"
#include "tessera/kernels.h"
#include "tessera/store.h"

namespace {

using tessera::CancelToken;
using tessera::Status;

Napi::Error StatusError(Napi::Env env, int status, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("status", Napi::Number::New(env, status));
  return e;
}

// Runs work() on a libuv worker and settles a promise with its bytes (a Buffer), or with an Error
// whose `status` is the spec's HTTP status. Exceptions never cross into JS as C++ exceptions.
class CoreTask : public Napi::AsyncWorker {
 public:
  using Work = std::function<std::string()>;
  using Finish = std::function<Napi::Value(Napi::Env, std::string&)>;

  static Napi::Promise Run(Napi::Env env, Work work, Finish finish = nullptr) {
    auto* task = new CoreTask(env, std::move(work), std::move(finish));
    Napi::Promise promise = task->deferred_.Promise();
    task->Queue();
    return promise;
  }

 private:
  CoreTask(Napi::Env env, Work work, Finish finish)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)), finish_(std::move(finish)) {}

  void Execute() override {
    try {
      result_ = work_();
    } catch (const tessera::Error& e) {
      Fail(int(e.status()), e.what());
    } catch (const std::bad_alloc&) {
      Fail(int(Status::kInsufficientStorage), "out of memory");
    } catch (const std::exception& e) {
      Fail(int(Status::kInternal), e.what());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (failed_) {
      deferred_.Reject(StatusError(env, status_, message_).Value());
      return;
    }
    try {
      deferred_.Resolve(finish_ ? finish_(env, result_) : Napi::Buffer<char>::Copy(env, result_.data(), result_.size()));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

  void Fail(int status, const std::string& message) {
    failed_ = true;
    status_ = status;
    message_ = message;
  }

  Napi::Promise::Deferred deferred_;
  Work work_;
  Finish finish_;
  std::string result_;
  bool failed_ = false;
  int status_ = 0;
  std::string message_;
};

class CancelTokenWrap : public Napi::ObjectWrap<CancelTokenWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "CancelToken", {InstanceMethod("cancel", &CancelTokenWrap::Cancel)});
  }
  explicit CancelTokenWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CancelTokenWrap>(info), token_(std::make_shared<CancelToken>()) {}
  std::shared_ptr<CancelToken> token() const { return token_; }

 private:
  Napi::Value Cancel(const Napi::CallbackInfo& info) {
    token_->Cancel();
    return info.Env().Undefined();
  }
  std::shared_ptr<CancelToken> token_;
};

// An optional CancelToken argument; a fresh never-cancelled token when absent.
std::shared_ptr<CancelToken> TokenArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() > i && info[i].IsObject()) return CancelTokenWrap::Unwrap(info[i].As<Napi::Object>())->token();
  return std::make_shared<CancelToken>();
}

std::string StringArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsString()) throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a string");
  return info[i].As<Napi::String>().Utf8Value();
}

std::string BytesArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsTypedArray()) throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a Uint8Array");
  auto bytes = info[i].As<Napi::Uint8Array>();
  return std::string(reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength());
}

class RecordsCursorWrap : public Napi::ObjectWrap<RecordsCursorWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "RecordsCursor",
                       {InstanceMethod("next", &RecordsCursorWrap::Next), InstanceMethod("close", &RecordsCursorWrap::Close)});
  }
  explicit RecordsCursorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RecordsCursorWrap>(info) {}
  void Attach(std::shared_ptr<tessera::Store> store, std::unique_ptr<tessera::RecordsCursor> cursor) {
    store_ = std::move(store);
    cursor_ = std::shared_ptr<tessera::RecordsCursor>(std::move(cursor));
  }

 private:
  // Releases the pinned snapshot before the cursor is garbage-collected.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    cursor_.reset();
    store_.reset();
    return info.Env().Undefined();
  }

  // next(maxBytes) resolves the next piece of the JSON array, or null once it is complete.
  Napi::Value Next(const Napi::CallbackInfo& info) {
    if (!cursor_) throw Napi::Error::New(info.Env(), "the records cursor is closed");
    size_t max_bytes = info.Length() > 0 && info[0].IsNumber() ? size_t(info[0].As<Napi::Number>().Int64Value()) : 1 << 20;
    auto cursor = cursor_;
    auto store = store_;
    auto done = std::make_shared<bool>(false);
    return CoreTask::Run(
        info.Env(),
        [cursor, store, max_bytes, done] {
          std::string piece;
          *done = !cursor->Next(max_bytes, &piece);
          return piece;
        },
        [done](Napi::Env env, std::string& bytes) -> Napi::Value {
          if (*done) return env.Null();
          return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
        });
  }
  std::shared_ptr<tessera::Store> store_;
  std::shared_ptr<tessera::RecordsCursor> cursor_;
};

struct AddonData {
  Napi::FunctionReference store_ctor;
  Napi::FunctionReference cursor_ctor;
};

class StoreWrap : public Napi::ObjectWrap<StoreWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeStore",
                       {
                           StaticMethod("open", &StoreWrap::Open),
                           InstanceMethod("collections", &StoreWrap::Collections),
                           InstanceMethod("createCollection", &StoreWrap::CreateCollection),
                           InstanceMethod("dropCollection", &StoreWrap::DropCollection),
                           InstanceMethod("getMeta", &StoreWrap::GetMeta),
                           InstanceMethod("putMeta", &StoreWrap::PutMeta),
                           InstanceMethod("setVectorNames", &StoreWrap::SetVectorNames),
                           InstanceMethod("setFilterIndex", &StoreWrap::SetFilterIndex),
                           InstanceMethod("aliases", &StoreWrap::Aliases),
                           InstanceMethod("putAlias", &StoreWrap::PutAlias),
                           InstanceMethod("dropAlias", &StoreWrap::DropAlias),
                           InstanceMethod("upsert", &StoreWrap::Upsert),
                           InstanceMethod("delete", &StoreWrap::Delete),
                           InstanceMethod("records", &StoreWrap::Records),
                           InstanceMethod("search", &StoreWrap::Search),
                           InstanceMethod("searchSimilar", &StoreWrap::SearchSimilar),
                           InstanceMethod("searchBatch", &StoreWrap::SearchBatch),
                           InstanceMethod("textSearch", &StoreWrap::TextSearch),
                           InstanceMethod("hybridSearch", &StoreWrap::HybridSearch),
                           InstanceMethod("suggest", &StoreWrap::Suggest),
                           InstanceMethod("setFtsSchema", &StoreWrap::SetFtsSchema),
                           InstanceMethod("list", &StoreWrap::List),
                           InstanceMethod("aggregate", &StoreWrap::Aggregate),
                           InstanceMethod("stats", &StoreWrap::Stats),
                           InstanceMethod("flush", &StoreWrap::Flush),
                           InstanceMethod("close", &StoreWrap::Close),
                           InstanceMethod("info", &StoreWrap::Info),
                           InstanceMethod("poisoned", &StoreWrap::Poisoned),
                           InstanceMethod("commitVersion", &StoreWrap::CommitVersion),
                           InstanceMethod("footprint", &StoreWrap::Footprint),
                           InstanceMethod("injectWriteFault", &StoreWrap::InjectWriteFault),
                       });
  }
  explicit StoreWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StoreWrap>(info) {}

 private:
  // open({path, inMemory, dimension, distance, queryThreads, mmap, readOnly}) -> Promise<NativeStore>
  static Napi::Value Open(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "open() takes an options object");
    Napi::Object o = info[0].As<Napi::Object>();
    tessera::StoreOptions opts;
    if (o.Has("path") && o.Get("path").IsString()) opts.path = o.Get("path").As<Napi::String>().Utf8Value();
    opts.in_memory = o.Has("inMemory") && o.Get("inMemory").ToBoolean();
    if (o.Has("dimension") && o.Get("dimension").IsNumber()) opts.dimension = uint32_t(o.Get("dimension").As<Napi::Number>().Int64Value());
    if (o.Has("distance") && o.Get("distance").IsString()) {
      std::string d = o.Get("distance").As<Napi::String>().Utf8Value();
      opts.metric = tessera::ParseMetric(d);
      if (!opts.metric) throw StatusError(env, 400, "distance must be Cosine, Euclidean or DotProduct, got '" + d + "'");
    }
    if (o.Has("queryThreads") && o.Get("queryThreads").IsNumber()) opts.query_threads = size_t(o.Get("queryThreads").As<Napi::Number>().Int64Value());
    if (o.Has("mmap") && o.Get("mmap").IsBoolean()) opts.mmap = o.Get("mmap").As<Napi::Boolean>();
    opts.read_only = o.Has("readOnly") && o.Get("readOnly").ToBoolean();
    auto holder = std::make_shared<std::shared_ptr<tessera::Store>>();
    return CoreTask::Run(
        env,
        [opts, holder] {
          *holder = tessera::Store::Open(opts);
          return std::string();
        },
        [holder](Napi::Env env, std::string&) -> Napi::Value {
          Napi::Object obj = env.GetInstanceData<AddonData>()->store_ctor.New({});
          StoreWrap::Unwrap(obj)->store_ = *holder;
          return obj;
        });
  }

  tessera::Store& store(Napi::Env env) {
    if (!store_) throw Napi::Error::New(env, "store is not open");
    return *store_;
  }
  std::shared_ptr<tessera::Store> shared(Napi::Env env) {
    store(env);
    return store_;
  }

  Napi::Value Collections(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s] { return s->Collections(); });
  }
  Napi::Value CreateCollection(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0)] { return s->CreateCollection(name); });
  }
  Napi::Value DropCollection(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0)] { return s->DropCollection(name); });
  }
  Napi::Value GetMeta(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0)] { return s->GetMeta(name); });
  }
  Napi::Value PutMeta(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->PutMeta(name, body); });
  }
  Napi::Value SetVectorNames(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->SetVectorNames(name, body); });
  }
  Napi::Value SetFilterIndex(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->SetFilterIndex(name, body); });
  }
  Napi::Value SetFtsSchema(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->SetFtsSchema(name, body); });
  }
  Napi::Value Aliases(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s] { return s->Aliases(); });
  }
  Napi::Value PutAlias(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->PutAlias(name, body); });
  }
  Napi::Value DropAlias(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0)] { return s->DropAlias(name); });
  }
  Napi::Value Upsert(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->Upsert(name, body); });
  }
  Napi::Value Delete(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, name = StringArg(info, 0), body = BytesArg(info, 1)] { return s->Delete(name, body); });
  }
  Napi::Value Records(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    auto cursor = std::make_shared<std::unique_ptr<tessera::RecordsCursor>>();
    return CoreTask::Run(
        info.Env(),
        [s, cursor, name = StringArg(info, 0)] {
          *cursor = s->OpenRecords(name);
          return std::string();
        },
        [s, cursor](Napi::Env env, std::string&) -> Napi::Value {
          Napi::Object obj = env.GetInstanceData<AddonData>()->cursor_ctor.New({});
          RecordsCursorWrap::Unwrap(obj)->Attach(s, std::move(*cursor));
          return obj;
        });
  }
  // Reads that take a request body and a cancel token: (body, token?) -> Promise<Buffer>.
  using Query = std::string (tessera::Store::*)(std::string_view, const CancelToken&);
  Napi::Value RunQuery(const Napi::CallbackInfo& info, Query query) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s, query, body = BytesArg(info, 0), token = TokenArg(info, 1)] {
      return ((*s).*query)(body, *token);
    });
  }
  Napi::Value Search(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::Search); }
  Napi::Value SearchSimilar(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::SearchSimilar); }
  Napi::Value SearchBatch(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::SearchBatch); }
  Napi::Value TextSearch(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::TextSearch); }
  Napi::Value HybridSearch(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::HybridSearch); }
  Napi::Value Suggest(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::Suggest); }
  Napi::Value List(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::List); }
  Napi::Value Aggregate(const Napi::CallbackInfo& info) { return RunQuery(info, &tessera::Store::Aggregate); }
  Napi::Value Stats(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s] { return s->Stats(); });
  }
  Napi::Value Flush(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s] { return s->Flush(); });
  }
  Napi::Value Close(const Napi::CallbackInfo& info) {
    auto s = shared(info.Env());
    return CoreTask::Run(info.Env(), [s] {
      s->Close();
      return std::string();
    });
  }

  // Fixed facts about the open store, read once by the TypeScript layer.
  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    tessera::Store& s = store(env);
    Napi::Object o = Napi::Object::New(env);
    const char* roles[] = {"Writer", "Reader", "InMemory"};
    o.Set("role", roles[int(s.role())]);
    o.Set("writerHolder", s.writer_holder().empty() ? env.Null() : Napi::String::New(env, s.writer_holder()));
    o.Set("dimension", s.dimension());
    o.Set("distance", tessera::MetricName(s.metric()));
    o.Set("queryThreads", double(s.query_threads()));
    o.Set("mmap", s.mmap());
    return o;
  }
  Napi::Value Poisoned(const Napi::CallbackInfo& info) {
    std::string p = store(info.Env()).poisoned();
    return p.empty() ? info.Env().Null() : Napi::String::New(info.Env(), p);
  }
  Napi::Value CommitVersion(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(store(info.Env()).commit_version()));
  }
  Napi::Value Footprint(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const tessera::FootprintCounters& f = store(env).footprint();
    Napi::Object o = Napi::Object::New(env);
    o.Set("rows", double(f.rows.load()));
    o.Set("dead_rows", double(f.dead_rows.load()));
    o.Set("doc_count", double(f.doc_count.load()));
    o.Set("collections", double(f.collections.load()));
    return o;
  }
  Napi::Value InjectWriteFault(const Napi::CallbackInfo& info) {
    store(info.Env()).InjectWriteFault();
    return info.Env().Undefined();
  }

  std::shared_ptr<tessera::Store> store_;
};

// kernels: which SIMD families run here, and each one callable so tests compare it to scalar.
Napi::Value SupportedKernels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto all = tessera::SupportedKernels();
  Napi::Array out = Napi::Array::New(env, all.size());
  for (size_t i = 0; i < all.size(); ++i) out.Set(uint32_t(i), all[i]->name);
  return out;
}

Napi::Value ActiveKernels(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), tessera::ActiveKernels().name); }

// runKernel(family, op, a, b): 'dot' | 'l2sq' score a against b; 'dot_rows' | 'l2sq_rows'
// score a against each a.length-sized row of b and return the scores.
Napi::Value RunKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string family = StringArg(info, 0), op = StringArg(info, 1);
  if (info.Length() < 4 || !info[2].IsTypedArray() || !info[3].IsTypedArray()) throw Napi::TypeError::New(env, "runKernel(family, op, a, b) takes two Float32Arrays");
  auto a = info[2].As<Napi::Float32Array>(), b = info[3].As<Napi::Float32Array>();
  size_t n = a.ElementLength();
  bool rows = op == "dot_rows" || op == "l2sq_rows";
  if (rows ? (n == 0 || b.ElementLength() % n != 0) : b.ElementLength() != n) throw Napi::RangeError::New(env, "vector lengths do not fit the op");
  for (const tessera::Kernels* k : tessera::SupportedKernels()) {
    if (family != k->name) continue;
    if (!rows) return Napi::Number::New(env, op == "dot" ? k->dot(a.Data(), b.Data(), n) : k->l2sq(a.Data(), b.Data(), n));
    size_t count = b.ElementLength() / n;
    Napi::Float32Array out = Napi::Float32Array::New(env, count);
    (op == "dot_rows" ? k->dot_rows : k->l2sq_rows)(a.Data(), b.Data(), n, count, out.Data());
    return out;
  }
  throw Napi::Error::New(env, "kernel family " + family + " does not run on this CPU");
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  Napi::Function store = StoreWrap::Define(env);
  Napi::Function cursor = RecordsCursorWrap::Define(env);
  data->store_ctor = Napi::Persistent(store);
  data->cursor_ctor = Napi::Persistent(cursor);
  env.SetInstanceData(data);
  exports.Set("NativeStore", store);
  exports.Set("CancelToken", CancelTokenWrap::Define(env));
  exports.Set("supportedKernels", Napi::Function::New(env, SupportedKernels));
  exports.Set("activeKernels", Napi::Function::New(env, ActiveKernels));
  exports.Set("runKernel", Napi::Function::New(env, RunKernel));
  return exports;
}

}  // namespace

NODE_API_MODULE(tessera, Init)
