// The figures in src/common/figures draw from an ExportContext; here it is assembled around the
// analysis the worker already made (exportContext() would analyse again on this thread).
export { contextAround as contextFor } from '../../../common/export/context.js';
