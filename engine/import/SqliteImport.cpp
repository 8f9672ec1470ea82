//===- import/SqliteImport.cpp --------------------------------------------===//
#include "import/SqliteImport.h"
#include "import/nsys/NsysImporter.h"
#include "import/nsys/Sqlite.h"
#include "import/rocpd/RocpdImporter.h"
#include "import/rocpd/RocpdSchema.h"

using namespace tracelint;
using namespace tracelint::import;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// The answer for a rocmProfileData database.
llvm::Error rpdDatabase(const nsys::Database &Db) {
  return Db.fail("", "a rocmProfileData (RPD) database (tables rocpd_api, "
                     "rocpd_op), not rocprofv3's rocpd output: tracelint "
                     "reads the database rocprofv3 writes (ROCm 7's default "
                     "output); convert this one to a Chrome trace with "
                     "rocmProfileData's rpd2tracing.py and pass the JSON");
}

/// Imports \p Db when it is a ROCm database; nullopt for anything else.
std::optional<Expected<model::Trace>> importRocm(Expected<nsys::Database> Db,
                                                 const ImportOptions &Opts) {
  // A file SQLite cannot open is reported by the nsys importer, which
  // opens it the same way and gives the same error.
  if (!Db) {
    llvm::consumeError(Db.takeError());
    return std::nullopt;
  }
  if (isRocpdDatabase(*Db))
    return importRocpdDatabase(*Db, Opts);
  if (rocpd::isRpdDatabase(Db->tables()))
    return Expected<model::Trace>(rpdDatabase(*Db));
  return std::nullopt;
}

} // namespace

Expected<model::Trace>
tracelint::import::importSqliteFile(StringRef Path, const ImportOptions &Opts) {
  if (auto T = importRocm(nsys::Database::open(Path), Opts))
    return std::move(*T);
  return importNsysExport(Path, Opts);
}

Expected<model::Trace>
tracelint::import::importSqliteBytes(StringRef Name, StringRef Bytes,
                                     const ImportOptions &Opts) {
  if (auto T = importRocm(nsys::Database::openImage(Name, Bytes), Opts))
    return std::move(*T);
  return importNsysExportBytes(Name, Bytes, Opts);
}
