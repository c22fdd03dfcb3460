// `noImplicitAny` for the modules that are fully typed (docs/frontend.md, "Checking the
// JavaScript"). tsconfig.typed.json extends tsconfig.json with noImplicitAny on and
// `include`s the files and folders that hold it; tsc run on it would also report every
// module they import, typed or not, so this runs the same program through TypeScript's
// own API and reports the diagnostics of the included files only. Exits 1 on any.
import path from "node:path";
import process from "node:process";
import ts from "typescript";

const configPath = path.resolve(process.argv[2] ?? "tsconfig.typed.json");
const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    console.error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    process.exit(2);
  },
};
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
if (!parsed) process.exit(2);
if (parsed.options.noImplicitAny !== true) {
  console.error(`${configPath}: noImplicitAny is not on`);
  process.exit(2);
}
const covered = new Set(parsed.fileNames.map((name) => path.resolve(name)));
if (covered.size === 0) {
  console.error(`${configPath}: includes no file`);
  process.exit(2);
}
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics()];
for (const file of program.getSourceFiles()) {
  if (!covered.has(path.resolve(file.fileName))) continue;
  diagnostics.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file));
}
const formatHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: ts.sys.getCurrentDirectory,
  getNewLine: () => ts.sys.newLine,
};
if (diagnostics.length) {
  process.stdout.write(ts.formatDiagnostics(diagnostics, formatHost));
  console.error(`${diagnostics.length} errors in the typed modules (${covered.size} files, noImplicitAny)`);
  process.exit(1);
}
console.log(`typed: ${covered.size} files hold noImplicitAny`);
