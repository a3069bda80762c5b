import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { projectPath } from '../../src/lib/paths.js'

/*
 * The documentation holds together: every relative link of the README and
 * of docs/ names a file that exists, every decision has its file and its
 * line in the index, and every docs/ path a source file names is there.
 */

const root = projectPath()
const markdown = ['README.md', ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter(file => file.endsWith('.md')).map(file => `docs/${file}`)]

t.test('every relative link of the README and docs/ names a file that exists', async t => {
  let links = 0
  for (const file of markdown) {
    const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const path = (target as string).split('#')[0] as string
      if (/^[a-z]+:/.test(path) || path === '' || path.startsWith('/')) continue
      links++
      if (!existsSync(join(root, dirname(file), path))) t.fail(`${file}: ${target as string} is not there`)
    }
  }
  t.ok(links > 100, `${links} links checked`)
})

t.test('each decision is a file of its own, listed in the index, numbered in order', async t => {
  const folder = join(root, 'docs', 'decisions')
  const files = readdirSync(folder).filter(file => /^\d{4}-[a-z0-9-]+\.md$/.test(file)).sort()
  const index = readFileSync(join(folder, 'README.md'), 'utf8')
  t.ok(files.length >= 74, `${files.length} decisions`)
  files.forEach((file, i) => {
    t.equal(Number(file.slice(0, 4)), i + 1, `${file} has the next number`)
    t.match(index, `](${file})`, `${file} is in the index`)
    t.match(readFileSync(join(folder, file), 'utf8'), new RegExp(`^# ${i + 1}\\. .+\\n\\nStatus: \\w+`), `${file} begins with its number, title and status`)
  })
})

t.test('every docs/ path a source file names is there', async t => {
  let named = 0
  for (const folder of ['src', 'plugins', 'bench', 'scripts', 'test']) {
    for (const file of readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).filter(name => /\.(ts|mjs|lua)$/.test(name))) {
      for (const [path] of readFileSync(join(root, folder, file), 'utf8').matchAll(/docs\/[\w/.-]+\.md/g)) {
        named++
        if (!existsSync(join(root, path))) t.fail(`${folder}/${file}: ${path} is not there`)
      }
    }
  }
  t.ok(named > 50, `${named} paths checked`)
})
