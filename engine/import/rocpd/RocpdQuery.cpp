//===- import/rocpd/RocpdQuery.cpp ----------------------------------------===//
#include "import/rocpd/RocpdQuery.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tracelint;
using namespace tracelint::import;
using namespace tracelint::import::rocpd;
using llvm::StringRef;
using nsys::quoteIdentifier;

namespace {

/// The error for a table without required column \p Name. rocpd schema 4
/// moved every time into rocpd_timestamp (start_id, end_id): say so, rather
/// than only that a column is missing.
llvm::Error missingColumn(nsys::Database &Db, StringRef Table, StringRef Name,
                          const llvm::StringSet<> &Have) {
  std::string Why = llvm::formatv("no column \"{0}\": rocprofv3's rocpd "
                                  "schema 3 has it, and no row of this table "
                                  "can be read without it",
                                  Name)
                        .str();
  if (Have.count((Name + "_id").str()))
    Why += llvm::formatv("; the table has \"{0}_id\" instead, as in the rocpd "
                         "schema 4 layout (times in rocpd_timestamp), which "
                         "tracelint does not read yet",
                         Name)
               .str();
  return Db.fail(Table, Why);
}

/// True when \p Key is \p Table's INTEGER PRIMARY KEY, another name for its
/// rowid: each value names one row, found by one b-tree descent. rocprofv3
/// declares every id so. A join on any other column could match many rows
/// per row, or scan the table for each, and a hostile file could make that
/// quadratic.
llvm::Expected<bool> isRowid(nsys::Database &Db, StringRef Table,
                             StringRef Key) {
  // Names here are the importer's own (a base name and a run suffix of
  // letters, digits and '_'), but quote them as SQL strings all the same.
  auto Literal = [](StringRef S) {
    std::string Out = "'";
    for (char C : S)
      Out += C == '\'' ? std::string("''") : std::string(1, C);
    return Out + "'";
  };
  auto S = Db.prepare("SELECT name, upper(type), pk FROM pragma_table_info(" +
                          Literal(Table) + ") WHERE pk > 0",
                      Table);
  if (!S)
    return S.takeError();
  unsigned Keys = 0;
  bool IsKey = false;
  while (S->step()) {
    ++Keys;
    IsKey |= S->text(0) == Key && S->text(1) == "INTEGER";
  }
  if (llvm::Error E = S->error())
    return E;
  return IsKey && Keys == 1;
}

/// "A.name AS "A.name"": every result column is named after its alias, so
/// that columns of the same name in two tables stay apart.
std::string selected(StringRef Alias, StringRef Name) {
  return (Alias + "." + quoteIdentifier(Name) + " AS " +
          quoteIdentifier((Alias + "." + Name).str()))
      .str();
}

} // namespace

llvm::Expected<nsys::Statement> rocpd::select(nsys::Database &Db,
                                              StringRef Table,
                                              llvm::ArrayRef<Column *> Columns,
                                              llvm::ArrayRef<Join> Joins) {
  auto Have = Db.columns(Table);
  if (!Have)
    return Have.takeError();
  std::vector<std::string> List;
  for (const Column *C : Columns) {
    if (Have->count(C->Name))
      List.push_back(selected("R", C->Name));
    else if (C->P == Column::Required)
      return missingColumn(Db, Table, C->Name, *Have);
  }
  std::string From = " FROM " + quoteIdentifier(Table) + " AS R";
  std::vector<std::string> Aliases;
  for (size_t I = 0; I < Joins.size(); ++I) {
    const Join &J = Joins[I];
    // Appended, not "J" + to_string(I): GCC 12 warns (falsely) of an
    // overflow in operator+(const char *, string &&).
    std::string Alias = "J";
    Alias += std::to_string(I);
    Aliases.push_back(Alias);
    if (!Db.hasTable(J.Table) || !Have->count(J.From))
      continue;
    auto Other = Db.columns(J.Table);
    if (!Other)
      return Other.takeError();
    if (!Other->count(J.Key))
      continue;
    auto Rowid = isRowid(Db, J.Table, J.Key);
    if (!Rowid)
      return Rowid.takeError();
    if (!*Rowid)
      return Db.fail(J.Table,
                     llvm::formatv("column \"{0}\" is not the table's "
                                   "INTEGER PRIMARY KEY, as rocprofv3 writes "
                                   "it; the rows of {1} that point at it "
                                   "cannot be matched safely",
                                   J.Key, Table));
    From += " LEFT JOIN " + quoteIdentifier(J.Table) + " AS " + Alias + " ON " +
            Alias + ".rowid = R." + quoteIdentifier(J.From);
    for (const Column *C : J.Columns)
      if (Other->count(C->Name))
        List.push_back(selected(Alias, C->Name));
  }
  // A table with none of the columns still has rows to step through.
  if (List.empty())
    List.push_back("NULL");
  std::string Sql = "SELECT ";
  for (size_t I = 0; I < List.size(); ++I) {
    if (I)
      Sql += ", ";
    Sql += List[I];
  }
  Sql += From;
  auto S = Db.prepare(Sql, Table);
  if (!S)
    return S.takeError();

  auto Find = [&](StringRef Alias, Column &C) {
    C.Index = -1;
    std::string Want = (Alias + "." + C.Name).str();
    for (int I = 0, N = S->columnCount(); I < N; ++I)
      if (S->columnName(I) == Want)
        C.Index = I;
  };
  for (Column *C : Columns)
    Find("R", *C);
  for (size_t I = 0; I < Joins.size(); ++I)
    for (Column *C : Joins[I].Columns)
      Find(Aliases[I], *C);
  return S;
}
