import { Tool, ToolError, type ToolParameters, type ToolWords } from '../src/engine/tools/tool.js';
import { parseToolParams, field } from '../src/engine/tools/tool-params.js';

/*
 * Arithmetic without eval: a small recursive-descent parser over numbers, + - * / % ^,
 * parentheses and a fixed list of functions and constants. Anything else is an error.
 */
const functions: Record<string, (...values: number[]) => number> = {
  sqrt: Math.sqrt, abs: Math.abs, round: Math.round, floor: Math.floor, ceil: Math.ceil,
  min: Math.min, max: Math.max, log: Math.log10, ln: Math.log, exp: Math.exp,
  sin: Math.sin, cos: Math.cos, tan: Math.tan,
};
const constants: Record<string, number> = { pi: Math.PI, e: Math.E };

export function evaluateArithmetic(expression: string): number {
  const tokens = expression.replace(/×/g, '*').replace(/÷/g, '/').replace(/,(?=\d{3}\b)/g, '').match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[A-Za-z_]+|\*\*|[-+*/%^(),]|\S/g) ?? [];
  let index = 0;
  const peek = () => tokens[index];
  const take = () => tokens[index++];
  const expect = (token: string) => {
    if (take() !== token) throw new ToolError(`Expected "${token}" in "${expression}".`);
  };

  function primary(): number {
    const token = take();
    if (token === undefined) throw new ToolError(`The expression "${expression}" ends too early.`);
    if (/^[\d.]/.test(token)) return Number(token);
    if (token === '(') {
      const value = sum();
      expect(')');
      return value;
    }
    if (token === '-') return -power();
    if (token === '+') return power();
    const name = token.toLowerCase();
    // Own properties only: "constructor" must not reach Object's prototype.
    if (Object.hasOwn(constants, name)) return constants[name]!;
    const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
    if (fn) {
      expect('(');
      const args = [sum()];
      while (peek() === ',') {
        take();
        args.push(sum());
      }
      expect(')');
      return fn(...args);
    }
    throw new ToolError(`"${token}" is not allowed. Use numbers, + - * / % ^, parentheses and ${Object.keys(functions).join(', ')}.`);
  }
  function power(): number {
    const base = primary();
    if (peek() === '^' || peek() === '**') {
      take();
      return base ** unary();
    }
    return base;
  }
  function unary(): number {
    if (peek() === '-') {
      take();
      return -unary();
    }
    if (peek() === '+') {
      take();
      return unary();
    }
    return power();
  }
  function product(): number {
    let value = unary();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const operator = take();
      const right = unary();
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  }
  function sum(): number {
    let value = product();
    while (peek() === '+' || peek() === '-') {
      const operator = take();
      const right = product();
      value = operator === '+' ? value + right : value - right;
    }
    return value;
  }

  if (tokens.length === 0) throw new ToolError('Give an expression, for example 2 * (3 + 4).');
  if (tokens.length > 500) throw new ToolError('That expression is too long.');
  const result = sum();
  if (index < tokens.length) throw new ToolError(`Unexpected "${tokens[index]}" in "${expression}".`);
  if (!Number.isFinite(result)) throw new ToolError(`The result of "${expression}" is not a finite number (division by zero?).`);
  return result;
}

export default class CalculatorTool extends Tool {
  readonly name = 'calculator';
  readonly description = 'Exact arithmetic: + - * / % ^, parentheses, sqrt, abs, round, floor, ceil, min, max, log, ln, exp, sin, cos, tan, pi, e.';
  readonly examples = ['[TOOL:calculator]2 * (3 + 4.5)[/TOOL]', '[TOOL:calculator]sqrt(2) ^ 2[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { expression: { type: 'string', description: 'The arithmetic to work out, such as 2 * (3 + 4.5) or sqrt(2) ^ 2.' } },
    required: ['expression'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Calculating', done: 'Used the calculator', act: 'calculate' };
  override readonly readsOutsideText = false;
  override readonly timeoutMs = 1000;

  /** "6 * 7 = 42" as it is; a long expression only by its result ("= 42"). */
  override summarize(result: string): string | undefined {
    const answer = / = ([^=\n]+)$/.exec(result)?.[1];
    if (answer === undefined) return undefined;
    return result.length <= 60 ? result : `= ${answer}`;
  }

  async run(raw: string): Promise<string> {
    const params = parseToolParams(raw);
    const expression = field(params, 'expression', 'expr', 'input', 'query') ?? params.text;
    const result = evaluateArithmetic(expression);
    return `${expression.trim()} = ${Number.isInteger(result) ? result : Number(result.toPrecision(12))}`;
  }
}
