// cli-table3 (with its string-width and colours) loads when a table is first drawn
// on a terminal, not with every command: --json and pipes never need it. A CommonJS
// require inside a function is what lets the bundler keep the load lazy.
exports.loadTable = () => require('cli-table3');
// The terminal width of a string (a CJK character or an emoji takes two columns), as
// cli-table3 itself measures it; loaded with it, only when a table meets a terminal.
exports.loadStringWidth = () => require('string-width');
