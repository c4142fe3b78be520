// The types of schema.generated.js: the experiment schema compiled by scripts/schema-validator.ts.
import type { ErrorObject } from 'ajv';

export interface ValidateFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export const validate: ValidateFunction;
export default validate;
