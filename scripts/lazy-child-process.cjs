// Bundled in place of node:child_process for commander only. commander requires it when it
// loads, for executable subcommands carrental never uses, and loading node's child_process
// costs ~3 ms of every start; this proxy loads it on first use instead.
module.exports = new Proxy({}, { get: (_target, name) => require('node:child_process')[name] });
