//===- import/nsys/Sqlite.cpp ---------------------------------------------===//
#include "import/nsys/Sqlite.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <sqlite3.h>

using namespace tracelint::import::nsys;
using llvm::StringRef;

//===-- Statement ---------------------------------------------------------===//

Statement::Statement(Statement &&O) noexcept
    : Db(O.Db), S(O.S), Table(std::move(O.Table)), LastRc(O.LastRc) {
  O.S = nullptr;
}

Statement &Statement::operator=(Statement &&O) noexcept {
  if (this != &O) {
    sqlite3_finalize(S);
    Db = O.Db;
    S = O.S;
    Table = std::move(O.Table);
    LastRc = O.LastRc;
    O.S = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(S); }

bool Statement::step() {
  if (!S)
    return false;
  LastRc = sqlite3_step(S);
  return LastRc == SQLITE_ROW;
}

llvm::Error Statement::error() {
  if (LastRc == SQLITE_ROW || LastRc == SQLITE_DONE || LastRc == SQLITE_OK)
    return llvm::Error::success();
  return Db->sqliteError(LastRc, Table);
}

void Statement::reset() {
  sqlite3_reset(S);
  LastRc = SQLITE_OK;
}

void Statement::bindInt(int Index, int64_t V) {
  sqlite3_bind_int64(S, Index, V);
}

bool Statement::isNull(int Col) const {
  return Col < 0 || sqlite3_column_type(S, Col) == SQLITE_NULL;
}

StringRef Statement::text(int Col) const {
  if (Col < 0)
    return StringRef();
  // Ask for the text first, then its length (the documented order).
  const unsigned char *P = sqlite3_column_text(S, Col);
  if (!P)
    return StringRef();
  int N = sqlite3_column_bytes(S, Col);
  return StringRef(reinterpret_cast<const char *>(P), size_t(N));
}

int Statement::columnCount() const { return sqlite3_column_count(S); }

StringRef Statement::columnName(int Col) const {
  const char *Name = sqlite3_column_name(S, Col);
  return Name ? StringRef(Name) : StringRef();
}

//===-- Database ----------------------------------------------------------===//

std::string tracelint::import::nsys::immutableUri(StringRef Path) {
  // A URI path starting with "//" would name an authority (a host).
  while (Path.startswith("//"))
    Path = Path.drop_front();
  std::string Out = "file:";
  for (char C : Path) {
    unsigned char U = static_cast<unsigned char>(C);
    if (llvm::isAlnum(C) || C == '/' || C == '.' || C == '-' || C == '_' ||
        C == '~')
      Out += C;
    else
      Out += llvm::formatv("%{0:X-2}", unsigned(U)).str();
  }
  return Out + "?immutable=1";
}

std::string tracelint::import::nsys::quoteIdentifier(StringRef Name) {
  std::string Out = "\"";
  for (char C : Name) {
    if (C == '"')
      Out += '"';
    Out += C;
  }
  return Out + "\"";
}

llvm::Expected<Database> Database::open(StringRef Path) {
  sqlite3 *Raw = nullptr;
  int Rc = sqlite3_open_v2(
      immutableUri(Path).c_str(), &Raw,
      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  Database Db(Raw, Path.str());
  if (Rc != SQLITE_OK)
    return Db.sqliteError(Rc, "");
  if (llvm::Error E = Db.restrict())
    return E;
  return Db;
}

llvm::Expected<Database> Database::openImage(StringRef Name, StringRef Bytes) {
  sqlite3 *Raw = nullptr;
  int Rc = sqlite3_open_v2(
      ":memory:", &Raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  Database Db(Raw, Name.str());
  if (Rc != SQLITE_OK)
    return Db.sqliteError(Rc, "");
  // SQLITE_DESERIALIZE_READONLY: SQLite never writes to (or frees) the
  // caller's bytes.
  Rc = sqlite3_deserialize(
      Raw, "main",
      reinterpret_cast<unsigned char *>(const_cast<char *>(Bytes.data())),
      sqlite3_int64(Bytes.size()), sqlite3_int64(Bytes.size()),
      SQLITE_DESERIALIZE_READONLY);
  if (Rc != SQLITE_OK)
    return Db.sqliteError(Rc, "");
  if (llvm::Error E = Db.restrict())
    return E;
  return Db;
}

llvm::Error Database::restrict() {
  sqlite3 *Raw = Db;
  // Nothing in the file may run code or change how it is read.
  sqlite3_db_config(Raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(Raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(Raw, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(Raw, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(Raw, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_busy_timeout(Raw, 5000);
  // Bound what one value may cost: no string or blob of ours is this long.
  sqlite3_limit(Raw, SQLITE_LIMIT_LENGTH, 256 << 20);
  sqlite3_limit(Raw, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
  return loadTables();
}

Database::Database(Database &&O) noexcept
    : Db(O.Db), Path(std::move(O.Path)), Tables(std::move(O.Tables)) {
  O.Db = nullptr;
}

Database &Database::operator=(Database &&O) noexcept {
  if (this != &O) {
    sqlite3_close(Db);
    Db = O.Db;
    Path = std::move(O.Path);
    Tables = std::move(O.Tables);
    O.Db = nullptr;
  }
  return *this;
}

Database::~Database() { sqlite3_close(Db); }

llvm::Error Database::fail(StringRef Table, const llvm::Twine &What) const {
  std::string Where =
      Table.empty() ? std::string() : ("table " + Table + ": ").str();
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), "%s: %s%s",
      Path.c_str(), Where.c_str(), What.str().c_str());
}

llvm::Error Database::sqliteError(int Rc, StringRef Table) const {
  const char *Msg = Db ? sqlite3_errmsg(Db) : sqlite3_errstr(Rc);
  int Primary = Rc & 0xff;
  std::string What;
  switch (Primary) {
  case SQLITE_CORRUPT:
    What = llvm::formatv("the SQLite file is damaged ({0}): it may have been "
                         "cut short or overwritten; export it again from the "
                         "report (an Nsight Systems export) or record it "
                         "again (a rocprofv3 database)",
                         Msg)
               .str();
    break;
  case SQLITE_NOTADB:
    What = llvm::formatv("not a readable SQLite database ({0})", Msg).str();
    break;
  case SQLITE_CANTOPEN:
    What = llvm::formatv("cannot open the file ({0})", Msg).str();
    break;
  case SQLITE_NOMEM:
    What = "out of memory while reading the SQLite file";
    break;
  case SQLITE_IOERR:
    What = llvm::formatv("I/O error while reading the SQLite file ({0})", Msg)
               .str();
    break;
  default:
    What = llvm::formatv("SQLite error: {0}", Msg).str();
    break;
  }
  return fail(Table, What);
}

llvm::Expected<Statement> Database::prepare(StringRef Sql, StringRef Table) {
  sqlite3_stmt *S = nullptr;
  int Rc = sqlite3_prepare_v2(Db, Sql.data(), int(Sql.size()), &S, nullptr);
  if (Rc != SQLITE_OK) {
    sqlite3_finalize(S);
    return sqliteError(Rc, Table);
  }
  return Statement(this, S, Table.str());
}

llvm::Error Database::loadTables() {
  auto S = prepare("SELECT name FROM sqlite_master WHERE type = 'table'",
                   "sqlite_master (the list of tables)");
  if (!S)
    return S.takeError();
  while (S->step())
    Tables.insert(S->text(0));
  return S->error();
}

llvm::Expected<llvm::StringSet<>> Database::columns(StringRef Table) {
  // table_info takes a string argument; bind it rather than splicing it in.
  auto S = prepare("SELECT name FROM pragma_table_info(?1)", Table);
  if (!S)
    return S.takeError();
  sqlite3_bind_text(S->S, 1, Table.data(), int(Table.size()), SQLITE_TRANSIENT);
  llvm::StringSet<> Out;
  while (S->step())
    Out.insert(S->text(0));
  if (llvm::Error E = S->error())
    return E;
  return Out;
}

uint64_t Database::rowEstimate(StringRef Table) {
  auto S = prepare("SELECT max(rowid) FROM " + quoteIdentifier(Table), Table);
  if (!S) {
    llvm::consumeError(S.takeError());
    return 0;
  }
  uint64_t N = 0;
  int64_t Max = 0;
  if (S->step() && S->integer(0, Max) == Statement::Kind::Integer && Max > 0)
    N = uint64_t(Max);
  llvm::consumeError(S->error());
  return N;
}
