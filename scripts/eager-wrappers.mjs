// Module wrappers V8 compiles at load, so that node's compile cache holds them.
//
// esbuild wraps every bundled CommonJS module (undici, commander, ...) and every lazily
// initialised ES module in a function it calls on first use: `var x = wrap((exports, module) => {…})`.
// V8 compiles such a function only when it is first called, and node's compile cache keeps
// only what V8 compiled when the file was loaded, so every run compiled these module bodies
// again (and parsed them twice: once to skip them at load, once to compile them).
// V8 compiles a function eagerly when its literal is `(function …` (the heuristic for an
// immediately invoked function). This pass, run on esbuild's output, writes each wrapper as
// `var x = wrap((function(exports, module) {…}))`; nothing else changes. It reads the code
// with TypeScript's parser (no pattern matching of text): a wrapper is the only argument of a
// call that initialises a top-level `var`/`let`/`const`, an arrow function with a block body.
// An arrow that reads `this`, `arguments`, `new.target` or `super` of its surroundings, or is
// async, is left as it is: a function would have its own. docs/performance.md ("What
// start-up costs") has what it saves; test/unit/eager-wrappers.test.ts pins the pass.
import ts from 'typescript';

/** True when `node` (an arrow function) uses something a `function` would bind for itself. */
function readsOuterBinding(node) {
  let found = false;
  const visit = (n) => {
    if (found) return;
    if (n.kind === ts.SyntaxKind.ThisKeyword || n.kind === ts.SyntaxKind.SuperKeyword || (ts.isMetaProperty(n) && n.keywordToken === ts.SyntaxKind.NewKeyword)) {
      found = true;
      return;
    }
    if (ts.isIdentifier(n) && n.text === 'arguments') {
      found = true;
      return;
    }
    // a function (not an arrow) binds these itself: what is inside is its own
    if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n)) return;
    // so do a class's members, but not what it extends or its computed member names
    if (ts.isClassLike(n)) {
      n.heritageClauses?.forEach(visit);
      for (const member of n.members) if (member.name && ts.isComputedPropertyName(member.name)) visit(member.name);
      return;
    }
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

/** The wrapper functions of one output file, as [start, end, replacement] edits. */
function wrapperEdits(code, file) {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const edits = [];
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const call = declaration.initializer;
      if (!call || !ts.isCallExpression(call) || call.arguments.length !== 1) continue;
      const fn = call.arguments[0];
      if (!ts.isArrowFunction(fn) || !ts.isBlock(fn.body)) continue;
      if (fn.modifiers?.length || readsOuterBinding(fn)) continue;
      const params = fn.parameters.map((p) => code.slice(p.getStart(sf), p.end)).join(',');
      edits.push([fn.getStart(sf), fn.end, `(function(${params})${code.slice(fn.body.getStart(sf), fn.body.end)})`]);
    }
  }
  return edits;
}

/** The code with its module wrappers written so that V8 compiles them at load. */
export function eagerWrappers(code, file = 'output.js') {
  let out = code;
  for (const [start, end, text] of wrapperEdits(code, file).reverse()) out = out.slice(0, start) + text + out.slice(end);
  return out;
}
