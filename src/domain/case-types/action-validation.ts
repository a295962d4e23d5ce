import type { CaseTypeDefinition, DefinitionProblem } from './definition.ts';
import { jsonPath } from './definition.ts';

/**
 * What the action check reads of a connector operation (connectors/manifest.ts `ActionOperation`
 * has this shape and more). Named here so case types need not import the connectors capability,
 * which imports the definition types: the two folders imported each other.
 */
export interface ActionOperation {
  operation_id: string;
  parameters: readonly { name: string; in: 'path' | 'query' | 'header'; required: boolean }[];
  request_body_schema?: unknown;
}

/** Where an action input goes in the request: a named parameter, or a field of the JSON body. */
export function inputTarget(operation: ActionOperation, name: string): { in: 'path' | 'query' | 'header' } | { in: 'body' } | undefined {
  const parameter = operation.parameters.find((p) => p.name === name);
  if (parameter) return { in: parameter.in };
  return operation.request_body_schema ? { in: 'body' } : undefined;
}

/**
 * Action nodes against the workspace's connectors as they are now: the connector and operation
 * exist, every input has somewhere to go, and required parameters are given. Each problem at
 * its JSON path, beside the definition's own problems.
 */
export function checkActionNodes(def: CaseTypeDefinition, connectors: ReadonlyMap<string, readonly ActionOperation[]>): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  def.workflow.nodes.forEach((node, n) => {
    if (node.type !== 'action') return;
    const at = (...rest: PropertyKey[]) => jsonPath(['workflow', 'nodes', n, ...rest]);
    const operations = connectors.get(node.connector_key);
    if (!operations) {
      problems.push({ path: at('connector_key'), message: `unknown connector "${node.connector_key}"` });
      return;
    }
    const operation = operations.find((o) => o.operation_id === node.operation_id);
    if (!operation) {
      problems.push({ path: at('operation_id'), message: `connector "${node.connector_key}" has no operation "${node.operation_id}"` });
      return;
    }
    for (const name of Object.keys(node.inputs)) {
      if (!inputTarget(operation, name)) {
        problems.push({ path: at('inputs', name), message: `operation "${operation.operation_id}" has no parameter "${name}" and takes no request body` });
      }
    }
    for (const p of operation.parameters) {
      if (p.required && !(p.name in node.inputs)) problems.push({ path: at('inputs'), message: `the required ${p.in} parameter "${p.name}" has no input` });
    }
  });
  return problems;
}
