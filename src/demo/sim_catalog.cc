#include "demo/sim_catalog.h"

#include <iterator>
#include <string_view>

#include "src/ray/protobuf/common.pb.h"

namespace rayagg::demo {
namespace {

// A data pipeline as teams run them on Ray: read and decode, join features,
// embed, fine-tune on GPUs, evaluate, write checkpoints and a report. Most
// tasks take well under a second; a few functions are slow or fail often,
// which is what the dashboard's panels are for.
constexpr Function kFunctions[] = {
    // module, name, weight, median, sigma, tail share, tail factor, cpu, gpu, GiB,
    // exception share, exception, oom share, jobs (1 etl, 2 train, 4 eval)
    {"pipeline.io", "read_parquet_shard", 24, 0.35, 0.5, 0.03, 25, 1, 0, 2, 0.01,
     Failure::kFileNotFound, 0, 0b001},
    {"pipeline.images", "decode_images", 18, 1.1, 0.6, 0.04, 15, 1, 0, 4, 0.015,
     Failure::kValueError, 0, 0b001},
    {"pipeline.text", "tokenize_batch", 20, 0.12, 0.4, 0.02, 30, 0.5, 0, 1, 0.004,
     Failure::kValueError, 0, 0b011},
    {"pipeline.features", "join_user_features", 12, 0.6, 0.5, 0.03, 12, 1, 0, 3, 0.05,
     Failure::kKeyError, 0, 0b101},
    {"pipeline.embeddings", "load_embeddings", 5, 3.0, 0.5, 0.05, 6, 2, 0, 12, 0, Failure::kNone,
     0.25, 0b010},
    {"pipeline.train", "finetune_adapter", 4, 12.0, 0.6, 0.1, 4, 4, 1, 24, 0.06, Failure::kCudaOom,
     0, 0b010},
    {"pipeline.eval", "compute_metrics", 9, 0.8, 0.7, 0.05, 10, 1, 0, 2, 0.02, Failure::kKeyError,
     0, 0b100},
    {"pipeline.io", "upload_checkpoint", 5, 2.0, 0.8, 0.1, 8, 1, 0, 2, 0.03,
     Failure::kEndpointError, 0, 0b010},
    {"pipeline.reports", "render_report", 3, 0.4, 0.3, 0.0, 1, 1, 0, 1, 0.05,
     Failure::kTemplateError, 0, 0b100},
};

constexpr ActorClass kActorClasses[] = {
    {"pipeline.serving", "ModelServer", "predict", 0.08, 1, 0},
    {"pipeline.serving", "ModelServer", "predict", 0.08, 1, 0},
    {"pipeline.train", "ParameterServer", "apply_gradients", 0.25, 2, 0},
    {"pipeline.metrics", "MetricsLogger", "log_batch", 0.03, 0.5, 0},
};

constexpr std::string_view kSitePackages = "/home/ray/anaconda3/lib/python3.11/site-packages/";

std::string Frame(std::string_view file, int line, std::string_view function,
                  std::string_view code) {
  std::string out = "  File \"";
  out += file;
  out += "\", line " + std::to_string(line) + ", in ";
  out += function;
  out += "\n    ";
  out += code;
  out += "\n";
  return out;
}

std::string Lib(std::string_view path) { return std::string(kSitePackages) + std::string(path); }

// Ray's header line of a task's exception: "ray::f() (pid=..., ip=...)".
std::string TraceHeader(const FailureContext& c) {
  return "ray::" + c.function + "() (pid=" + std::to_string(c.pid) + ", ip=" + c.node_ip + ")\n";
}

std::string Traceback(Failure failure, const FailureContext& c) {
  const std::string project = "/home/ray/workspace/pipeline/";
  switch (failure) {
    case Failure::kKeyError:
      return TraceHeader(c) +
             Frame(project + "features.py", 57, c.function,
                   "enriched = [enrich(row, lookup) for row in batch]") +
             Frame(project + "features.py", 57, "<listcomp>",
                   "enriched = [enrich(row, lookup) for row in batch]") +
             Frame(project + "features.py", 31, "enrich", "profile = lookup[row[\"user_id\"]]") +
             "KeyError: 'user_" + c.token + "'\n";
    case Failure::kValueError:
      return TraceHeader(c) +
             Frame(project + "decode.py", 112, c.function, "return [parse(r) for r in rows]") +
             Frame(project + "decode.py", 112, "<listcomp>", "return [parse(r) for r in rows]") +
             Frame(project + "decode.py", 74, "parse", "width = int(record[\"width\"])") +
             "ValueError: invalid literal for int() with base 10: 'w" + c.token + "'\n";
    case Failure::kFileNotFound:
      return TraceHeader(c) +
             Frame(project + "io.py", 23, c.function,
                   "table = pq.read_table(path, filesystem=fs)") +
             Frame(Lib("pyarrow/parquet/core.py"), 2955, "read_table",
                   "dataset = ParquetDataset(") +
             Frame(Lib("pyarrow/parquet/core.py"), 2480, "__init__",
                   "self._dataset = ds.dataset(path_or_paths, filesystem=filesystem,") +
             Frame(Lib("pyarrow/dataset.py"), 782, "dataset",
                   "return _filesystem_dataset(source, **kwargs)") +
             "FileNotFoundError: [Errno 2] Path does not exist: "
             "'demo-datasets/events/part-" +
             c.token + ".parquet'\n";
    case Failure::kCudaOom:
      return TraceHeader(c) +
             Frame(project + "train.py", 141, c.function, "loss = step(model, batch)") +
             Frame(project + "train.py", 98, "step", "out = model(**batch)") +
             Frame(Lib("torch/nn/modules/module.py"), 1518, "_wrapped_call_impl",
                   "return self._call_impl(*args, **kwargs)") +
             Frame(Lib("transformers/models/llama/modeling_llama.py"), 1183, "forward",
                   "outputs = self.model(") +
             Frame(Lib("torch/nn/functional.py"), 1858, "softmax",
                   "ret = input.softmax(dim, dtype=dtype)") +
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
             "has a total capacity of 22.19 GiB of which 1.31 GiB is free.\n\n"
             "The above exception was the direct cause of the following exception:\n\n" +
             TraceHeader(c) +
             Frame(project + "train.py", 146, c.function,
                   "raise RuntimeError(f\"training step failed on {shard}\") from err") +
             "RuntimeError: training step failed on s3://demo-datasets/finetune/shard-" + c.token +
             ".jsonl\n";
    case Failure::kEndpointError:
      return TraceHeader(c) +
             Frame(project + "checkpoint.py", 66, c.function,
                   "s3.upload_file(local_path, bucket, key)") +
             Frame(Lib("boto3/s3/inject.py"), 145, "upload_file", "return transfer.upload_file(") +
             Frame(Lib("s3transfer/futures.py"), 103, "result",
                   "return self._coordinator.result()") +
             Frame(Lib("botocore/httpsession.py"), 493, "send",
                   "raise EndpointConnectionError(endpoint_url=request.url, error=e)") +
             "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "
             "\"https://demo-checkpoints.s3.us-west-2.amazonaws.com/run-" +
             c.token + "/adapter.safetensors\"\n";
    case Failure::kTemplateError:
      return TraceHeader(c) +
             Frame(project + "report.py", 40, c.function, "html = template.render(**context)") +
             Frame(Lib("jinja2/environment.py"), 1301, "render",
                   "self.environment.handle_exception()") +
             Frame(Lib("jinja2/environment.py"), 936, "handle_exception",
                   "raise rewrite_traceback_stack(source=source)") +
             Frame("templates/summary.html.j2", 18, "top-level template code",
                   "{{ metrics[section].p99 | round(2) }}") +
             "jinja2.exceptions.UndefinedError: 'dict object' has no attribute 'q" + c.token +
             "'\n";
    default:
      return {};
  }
}

}  // namespace

std::span<const Function> Functions() { return kFunctions; }
std::span<const ActorClass> ActorClasses() { return kActorClasses; }

int32_t ErrorTypeOf(Failure failure) {
  switch (failure) {
    case Failure::kNone:
      return -1;
    case Failure::kWorkerDied:
      return ray::rpc::WORKER_DIED;
    case Failure::kOutOfMemory:
      return ray::rpc::OUT_OF_MEMORY;
    case Failure::kNodeDied:
      return ray::rpc::NODE_DIED;
    case Failure::kActorDied:
      return ray::rpc::ACTOR_DIED;
    default:
      return ray::rpc::TASK_EXECUTION_EXCEPTION;
  }
}

std::string FailureMessage(Failure failure, const FailureContext& c) {
  switch (failure) {
    case Failure::kNone:
      return {};
    case Failure::kWorkerDied:
      return "The worker died unexpectedly while executing this task. Check "
             "python-core-worker-" +
             c.worker_id_hex + "_" + std::to_string(c.pid) +
             ".log to troubleshoot (there may be messages about the worker's exit).";
    case Failure::kOutOfMemory:
      return "Task was killed due to the node running low on memory.\nMemory on the node (IP: " +
             c.node_ip + ", ID: " + c.node_id_hex + ") where the task (task ID: " + c.task_id_hex +
             ", name=" + c.function + ", pid=" + std::to_string(c.pid) +
             ", memory used=11.84GB) was running was 30.12GB / 31.00GB (0.971612), which exceeds "
             "the memory usage threshold of 0.95. Ray killed this worker (ID: " +
             c.worker_id_hex +
             ") because it was the most recently scheduled task; to see more information about "
             "memory usage on this node, use `ray logs raylet.out -ip " +
             c.node_ip +
             "`.\nRefer to the documentation on how to address the out of memory issue: "
             "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html.";
    case Failure::kNodeDied:
      return "Task failed due to the node (where this task was running)  was dead or unavailable."
             "\nThe node IP: " +
             c.node_ip + ", node ID: " + c.node_id_hex +
             "\nThis can happen if the instance where the node was running failed, the node was "
             "preempted, or raylet crashed unexpectedly (e.g., due to OOM) etc.";
    case Failure::kActorDied:
      return "The actor died unexpectedly before finishing this task.\n\tclass_name: " +
             c.function + "\n\tpid: " + std::to_string(c.pid) + "\n\tip: " + c.node_ip +
             (c.actor_killed
                  ? "\nThe actor was killed by `ray.kill`."
                  : "\nThe actor is dead because its node has died. Node Id: " + c.node_id_hex);
    default:
      return Traceback(failure, c);
  }
}

}  // namespace rayagg::demo
