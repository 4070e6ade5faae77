import type Table from 'cli-table3';

export function loadTable(): typeof Table;
export function loadStringWidth(): (text: string) => number;
