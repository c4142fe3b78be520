// What every template's experiment fills in the same way: the file's format and version, no cell left
// out, the interleaved order (the field notes' A B A B), and the target (`local` unless given).
import { CURRENT_VERSION, FORMAT, type ExperimentDoc } from '../experiment/types.js';

type Design = ExperimentDoc['design'];

export function templateDoc(name: string, description: string, design: Omit<Design, 'excludedCells' | 'order' | 'target'>, target = 'local'): ExperimentDoc {
  const { factors, ...rest } = design;
  return { format: FORMAT, version: CURRENT_VERSION, name, description, design: { factors, excludedCells: [], ...rest, order: 'interleaved', target } };
}
