#include "objstore/blocking_object_store.h"

#include <exception>
#include <optional>

namespace rayagg {

absl::StatusOr<std::unique_ptr<BlockingObjectStore>> BlockingObjectStore::Make(
    const StoreFactory& factory) {
  std::unique_ptr<BlockingObjectStore> wrapper(new BlockingObjectStore());
  absl::StatusOr<std::unique_ptr<ObjectStore>> store = factory(wrapper->io_context_.get_executor());
  if (!store.ok()) return store.status();
  wrapper->store_ = *std::move(store);
  return wrapper;
}

BlockingObjectStore::~BlockingObjectStore() {
  // The store first: it may wait for its own I/O thread.
  store_.reset();
}

template <typename T>
T BlockingObjectStore::Run(asio::awaitable<T> call) {
  MutexLock lock(mutex_);
  std::optional<T> result;
  std::exception_ptr error;
  asio::co_spawn(io_context_, std::move(call), [&](std::exception_ptr e, T value) {
    error = e;
    result.emplace(std::move(value));
  });
  io_context_.restart();
  // Run only until this call is done: an abandoned name lookup may still be
  // queued and must not hold the caller.
  while (!result && io_context_.run_one() > 0) {
  }
  if (error) std::rethrow_exception(error);
  if (!result) {
    return T(absl::InternalError("object store call ended without a result"));
  }
  return *std::move(result);
}

absl::Status BlockingObjectStore::Put(PutObjectRequest request) {
  return Run(store_->Put(std::move(request)));
}

absl::StatusOr<StoredObject> BlockingObjectStore::Get(GetObjectRequest request) {
  return Run(store_->Get(std::move(request)));
}

absl::StatusOr<ListObjectsPage> BlockingObjectStore::List(ListObjectsRequest request) {
  return Run(store_->List(std::move(request)));
}

std::string BlockingObjectStore::Describe() const { return store_->Describe(); }

}  // namespace rayagg
