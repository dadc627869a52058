import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(coerceTypes: boolean) {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
  });
  addFormats.default(ajv);
  return ajv;
}

// Query strings and path params arrive as text, so they are coerced; a JSON body is not:
// `"severity": 1` must be a 422, not silently become "1".
const lenient = makeAjv(true);
const strict = makeAjv(false);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : lenient;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};
