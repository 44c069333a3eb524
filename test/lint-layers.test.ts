// The layers are enforced by lint (STYLE house rule 6); this pins the rules so they cannot erode.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function messages(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}/${path}` });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('lint enforces the layers', () => {
  it.each([
    ['an upper library importing a provider', 'packages/mpi/src/x.ts', "import { tcpProvider } from '@dapl/provider-tcp';\nexport const x = tcpProvider;\n", /upper libraries never import a provider/],
    ['an upper library importing the provider kit', 'packages/fmpl/src/x.ts', "import { IaBase } from '@dapl/core/provider-kit';\nexport const x = IaBase;\n", /not the provider kit/],
    ['a provider importing an upper library', 'packages/provider-tcp/src/x.ts', "import { Mpi } from '@dapl/mpi';\nexport const x = Mpi;\n", /providers never import an upper library/],
    ['core importing a provider', 'packages/core/src/registry/x.ts', "import { tcpProvider } from '@dapl/provider-tcp';\nexport const x = tcpProvider;\n", /core must not import a provider/],
    ['behaviour in core/src/dat', 'packages/core/src/dat/x.ts', 'export function helper(): number {\n  return 1;\n}\n', /no behaviour/],
    ['console in library code', 'packages/provider-tcp/src/x.ts', "console.log('hi');\n", /Unexpected console/],
  ])('refuses %s', async (_what, path, code, expected) => {
    expect((await messages(path, code)).join('\n')).toMatch(expected);
  });

  it('allows the CLI to print and a provider to use the kit', async () => {
    expect(await messages('packages/core/src/cli/x.ts', "process.stdout.write('ok');\nconsole.log('ok');\n")).toEqual([]);
    expect(await messages('packages/provider-tcp/src/x.ts', "import { IaBase } from '@dapl/core/provider-kit';\nexport const x = IaBase;\n")).toEqual([]);
  });
});
