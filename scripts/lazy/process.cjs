'use strict';
// node:process for env-paths (scripts/build.mjs, plugin lazy-builtins): the process object
// itself. An ES module that imports node:process makes node build the builtin's module
// namespace, which reads every property of process, getters included
// (allowedNodeEnvironmentFlags, report, ...), on every command that reads the config.
module.exports = process;
