//===- capture/Launcher.cpp - Running a program under capture -------------===//
#include "Launcher.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

using namespace tracelint::capture;

llvm::Expected<std::string> tracelint::capture::findInjectionLibrary(
    llvm::StringRef Explicit, llvm::ArrayRef<std::string> Candidates) {
  if (!Explicit.empty()) {
    if (llvm::sys::fs::is_regular_file(Explicit))
      return Explicit.str();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: capture library not found (from --capture-library or "
        "TRACELINT_CAPTURE_LIBRARY); expected the path of "
        "libtracelint-capture.so",
        Explicit.str().c_str());
  }
  for (const std::string &C : Candidates)
    if (llvm::sys::fs::is_regular_file(C))
      return C;
  std::string Searched;
  for (const std::string &C : Candidates)
    Searched += "\n  " + C;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "cannot find the capture library libtracelint-capture.so; searched:%s\n"
      "set TRACELINT_CAPTURE_LIBRARY or pass --capture-library PATH",
      Searched.c_str());
}

std::vector<std::string>
tracelint::capture::injectionLibraryCandidates(llvm::StringRef ExecutablePath,
                                               llvm::StringRef BuildPath) {
  std::vector<std::string> Out;
  if (!ExecutablePath.empty()) {
    llvm::StringRef Dir = llvm::sys::path::parent_path(ExecutablePath);
    for (const char *Rel :
         {"libtracelint-capture.so", "../lib/libtracelint-capture.so",
          "../lib/tracelint/libtracelint-capture.so"}) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, Rel);
      llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
      Out.push_back(std::string(P));
    }
  }
  if (!BuildPath.empty() && !llvm::is_contained(Out, BuildPath.str()))
    Out.push_back(BuildPath.str());
  return Out;
}

std::string tracelint::capture::injectionLoadProblem(llvm::StringRef Path) {
  // RTLD_LOCAL: nothing of the library is visible to the launcher, which
  // never initialises CUDA. It stays loaded (never dlclose'd): libcupti
  // allocates when it loads, and unloading it would strand that memory (a
  // leak to LeakSanitizer, and for nothing: the launcher exits soon).
  if (dlopen(Path.str().c_str(), RTLD_LAZY | RTLD_LOCAL))
    return {};
  const char *Why = dlerror();
  return Why ? Why : "the loader gave no reason";
}

std::string
tracelint::capture::cudaDeviceProblem(llvm::StringRef DriverLibrary) {
  // Never dlclose'd, as above: the driver keeps state once initialised.
  void *Driver = dlopen(DriverLibrary.str().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Driver) {
    const char *Why = dlerror();
    return "no CUDA driver was found (" +
           std::string(Why ? Why : DriverLibrary.str() + " does not load") +
           ")";
  }
  // The driver API's own signatures (cuda.h), without its headers: this
  // library builds without the CUDA toolkit.
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using ErrorNameFn = int (*)(int, const char **);
  auto Init = reinterpret_cast<InitFn>(dlsym(Driver, "cuInit"));
  auto Count = reinterpret_cast<CountFn>(dlsym(Driver, "cuDeviceGetCount"));
  auto ErrorName =
      reinterpret_cast<ErrorNameFn>(dlsym(Driver, "cuGetErrorName"));
  if (!Init || !Count)
    return DriverLibrary.str() + " is not a CUDA driver (no cuInit)";
  constexpr int StubLibrary = 34, NoDevice = 100; // CUresult, cuda.h
  auto Named = [&](int Code) -> std::string {
    const char *Name = nullptr;
    if (ErrorName && ErrorName(Code, &Name) == 0 && Name)
      return Name;
    // The stub's cuGetErrorName fails too: name the codes that matter here.
    if (Code == StubLibrary)
      return "CUDA_ERROR_STUB_LIBRARY";
    if (Code == NoDevice)
      return "CUDA_ERROR_NO_DEVICE";
    return "CUDA error " + std::to_string(Code);
  };
  if (int Rc = Init(0)) {
    if (Rc == NoDevice)
      return "the CUDA driver found no device (cuInit: " + Named(Rc) + ")";
    if (Rc == StubLibrary)
      return "only the CUDA toolkit's stub libcuda was found, not a driver "
             "(cuInit: " +
             Named(Rc) + ")";
    return "the CUDA driver did not start (cuInit: " + Named(Rc) + ")";
  }
  int Devices = 0;
  if (int Rc = Count(&Devices))
    return "the CUDA driver cannot count its devices (cuDeviceGetCount: " +
           Named(Rc) + ")";
  if (Devices == 0)
    return "the CUDA driver found no device";
  return {};
}

bool tracelint::capture::isOnlyCuptiMissing(llvm::StringRef LoaderMessage) {
  // glibc: "libcupti.so.13: cannot open shared object file: No such file or
  // directory".
  return LoaderMessage.startswith("libcupti.so") &&
         LoaderMessage.contains("cannot open shared object file");
}

llvm::Expected<ChildEnvironment> tracelint::capture::buildChildEnvironment(
    llvm::ArrayRef<std::string> Parent, const CaptureOptions &Opts,
    llvm::StringRef InjectionLib, bool Nvtx) {
  ChildEnvironment Env;
  std::vector<std::pair<std::string, std::string>> Set =
      captureOptionsToEnv(Opts);
  Set.push_back({"CUDA_INJECTION64_PATH", InjectionLib.str()});
  bool ParentHasNvtx = false;
  for (const std::string &E : Parent) {
    auto [Key, Value] = llvm::StringRef(E).split('=');
    if (Key == "CUDA_INJECTION64_PATH" && !Value.empty() &&
        Value != InjectionLib)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "CUDA_INJECTION64_PATH is already set to '%s': another profiler "
          "injects into CUDA; unset it (or run without that profiler) to "
          "capture with tracelint",
          Value.str().c_str());
    if (Key == "NVTX_INJECTION64_PATH" && !Value.empty())
      ParentHasNvtx = true;
  }
  if (Nvtx && !ParentHasNvtx)
    Set.push_back({"NVTX_INJECTION64_PATH", InjectionLib.str()});
  if (ParentHasNvtx && Nvtx)
    Env.Notes.push_back("NVTX_INJECTION64_PATH is already set; NVTX ranges "
                        "reach tracelint only if it names tracelint's capture "
                        "library or the libcupti that library loads");

  for (const std::string &E : Parent) {
    llvm::StringRef Key = llvm::StringRef(E).split('=').first;
    bool Replaced =
        llvm::any_of(Set, [&](const auto &KV) { return KV.first == Key; });
    if (!Replaced)
      Env.Entries.push_back(E);
  }
  for (const auto &[K, V] : Set)
    Env.Entries.push_back(K + "=" + V);
  return Env;
}

std::set<std::string>
tracelint::capture::listTraceFiles(llvm::StringRef Dir,
                                   llvm::StringRef Prefix) {
  std::set<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.startswith((Prefix + ".").str()) && Name.endswith(".json"))
      Out.insert(Name.str());
  }
  return Out;
}

std::vector<std::string>
tracelint::capture::newTraceFiles(llvm::StringRef Dir, llvm::StringRef Prefix,
                                  const std::set<std::string> &Before) {
  std::vector<std::string> Out;
  for (const std::string &Name : listTraceFiles(Dir, Prefix))
    if (!Before.count(Name)) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, Name);
      Out.push_back(std::string(P));
    }
  return Out;
}
