import t from 'tap'
import { MalformedValue, collectParams, optional, param, parseFormBody, parseQuery, parseUrlEncoded, requireParams } from '../../src/lib/params.js'
import { codeOf, messageOf, params } from '../helpers/outcomes.js'

/*
 * The request parameters (src/lib/params.ts) against docs/interface.md#requests
 * and #field-rules: the form and query parsers, merging query and body, and
 * reading a parameter, with the exact error code each refuses with.
 */

/** `__proto__` as a key: a constant, since lint (no-proto) flags `.__proto__`; on these null-prototype maps it is an ordinary key. */
const PROTO = '__proto__'

t.test('parseUrlEncoded: names, values, + and percent-encoding', async t => {
  const empty = parseUrlEncoded('')
  t.same(Object.keys(empty), [])
  t.equal(Object.getPrototypeOf(empty), null, 'a null-prototype map')

  t.same({ ...parseUrlEncoded('a=1&b=2') }, { a: '1', b: '2' })
  t.same({ ...parseUrlEncoded('a=b+c&d=%2B&e=%20') }, { a: 'b c', d: '+', e: ' ' }, '+ is a space, %2B a plus')
  t.same({ ...parseUrlEncoded('a&b=&c=1=2') }, { a: '', b: '', c: '1=2' }, 'no = is an empty value; only the first = splits')
  t.same({ ...parseUrlEncoded('&&a=1&') }, { a: '1' }, 'empty pairs are skipped')
  t.same({ ...parseUrlEncoded('n=%F0%9F%98%80&m=%C3%A9') }, { n: '\u{1F600}', m: '\u00E9' }, 'UTF-8 escapes')
  t.same({ ...parseUrlEncoded('player+name=al%69ce') }, { 'player name': 'alice' }, 'names are decoded like values')
  t.same({ ...parseUrlEncoded('a=%41%42') }, { a: 'AB' })
})

t.test('parseUrlEncoded: a repeated name is an array, broken escapes a MalformedValue', async t => {
  t.same(parseUrlEncoded('a=1&a=2&a=3').a, ['1', '2', '3'])
  t.same(parseUrlEncoded('a=x&a=x').a, ['x', 'x'], 'even when the values are equal')

  for (const broken of ['%zz', '%', '%4', 'ok%', '%E0%A4%A', '%ED%A0%80', '%C3']) {
    const value = parseUrlEncoded(`a=${broken}`).a
    t.ok(value instanceof MalformedValue, `${broken} is malformed`)
    t.equal((value as MalformedValue).raw, broken, `${broken}: the raw text is kept`)
  }
  const brokenName = parseUrlEncoded('%zz=1')
  t.same(Object.keys(brokenName), ['%zz'], 'a name that cannot be decoded is kept raw')
  t.ok(brokenName['%zz'] instanceof MalformedValue, 'and its value counts as malformed')
  t.equal(parseUrlEncoded('a=100%25').a, '100%', '%25 is a literal percent sign')
})

t.test('parseUrlEncoded: __proto__ and constructor are ordinary names', async t => {
  const parsed = parseUrlEncoded('__proto__=x&constructor=y&toString=z&hasOwnProperty=w')
  t.equal(Object.getPrototypeOf(parsed), null, 'the prototype is not replaced')
  t.same(Object.keys(parsed).sort(), ['__proto__', 'constructor', 'hasOwnProperty', 'toString'])
  t.equal(parsed[PROTO], 'x')
  t.equal(parsed.constructor, 'y')
  t.equal(({} as Record<string, unknown>).x, undefined, 'Object.prototype untouched')
  t.equal(typeof Object.prototype.toString, 'function')

  const repeated = parseUrlEncoded('__proto__=a&__proto__=b')
  t.same(repeated[PROTO], ['a', 'b'], 'a repeated __proto__ is an own array too')
  t.equal(Object.getPrototypeOf(repeated), null)
})

t.test('parseQuery: one parse per request, handed over once', async t => {
  // A text no other test parses, so the module-level hand-over starts empty for it.
  const text = 'action=top&game_id=parse-query-test'
  const first = parseQuery(text)
  t.same({ ...first }, { action: 'top', game_id: 'parse-query-test' })
  t.equal(parseQuery(text), first, 'the second call (Fastify after the router) takes the same object')
  const third = parseQuery(text)
  t.not(third, first, 'the third (the next request) gets its own object')
  t.same({ ...third }, { ...first })

  const other = parseQuery('action=me&game_id=parse-query-other')
  t.not(parseQuery(text), third, 'another text in between ends the hand-over')
  t.not(other, third)
  t.ok(parseQuery('a=%zz').a instanceof MalformedValue, 'a broken query value stays malformed for collectParams to refuse')
})

t.test('parseFormBody: a broken escape is invalid_body', async t => {
  t.same({ ...parseFormBody('score=7&meta=%7B%7D') }, { score: '7', meta: '{}' })
  t.equal(Object.getPrototypeOf(parseFormBody('a=1')), null)
  t.equal(codeOf(() => parseFormBody('score=%zz')), 'invalid_body')
  t.equal(codeOf(() => parseFormBody('%zz=1')), 'invalid_body', 'in a name too')
  t.equal(messageOf(() => parseFormBody('a=%')), 'The form body has a malformed percent-encoding.')
  t.same(parseFormBody('a=1&a=2').a, ['1', '2'], 'a repeated name is left for collectParams (invalid_param)')
})

t.test('a form body with broken encoding and a repeated name', async t => {
  // docs/interface.md#check-order: the body (invalid_body) is checked before names sent twice (invalid_param).
  t.equal(codeOf(() => parseFormBody('a=%zz&a=1')), 'invalid_body', 'broken first')
  t.equal(codeOf(() => parseFormBody('a=1&a=%zz')), 'invalid_body', 'broken second')
  t.equal(codeOf(() => parseFormBody('%zz=1&%zz=2')), 'invalid_body', 'broken name twice')
})

t.test('collectParams: query and body merged, each name once', async t => {
  const merged = collectParams({ action: 'submit', game_id: 'demo' }, { score: '7', meta: '' })
  t.same({ ...merged }, { action: 'submit', game_id: 'demo', score: '7', meta: '' })
  t.equal(Object.getPrototypeOf(merged), null)
  t.same({ ...collectParams(undefined, undefined) }, {})
  t.same({ ...collectParams(null, { a: '1' }) }, { a: '1' })
  t.same({ ...collectParams(parseUrlEncoded('a=1'), parseFormBody('b=2')) }, { a: '1', b: '2' }, 'the parsers\' own output')

  t.equal(codeOf(() => collectParams({ a: '1' }, { a: '1' })), 'invalid_param', 'once in each, even equal')
  t.equal(messageOf(() => collectParams({ a: '1' }, { a: '2' })), 'Parameter "a" was sent more than once.')
  t.equal(codeOf(() => collectParams(parseUrlEncoded('a=1&a=1'), undefined)), 'invalid_param', 'twice in the query')
  t.equal(codeOf(() => collectParams(undefined, parseFormBody('a=1&a=2'))), 'invalid_param', 'twice in the body')
  t.equal(codeOf(() => collectParams({ x: '1' }, { a: ['1', '2'] })), 'invalid_param')
})

t.test('collectParams: malformed values and values that are not plain text', async t => {
  t.equal(codeOf(() => collectParams(parseUrlEncoded('a=%zz'), undefined)), 'invalid_param', 'broken query escape')
  t.equal(messageOf(() => collectParams(parseUrlEncoded('meta=%zz'), undefined)), 'Parameter "meta" has a malformed percent-encoding.')
  t.equal(codeOf(() => collectParams(parseUrlEncoded('a=%zz&a=1'), undefined)), 'invalid_param', 'broken and repeated')

  t.equal(codeOf(() => collectParams(undefined, 'a=1')), 'invalid_body', 'a body that is text, not fields')
  t.equal(codeOf(() => collectParams(undefined, 42)), 'invalid_body')
  t.equal(codeOf(() => collectParams(undefined, { a: 1 })), 'invalid_param', 'a number')
  t.equal(codeOf(() => collectParams(undefined, { a: { b: '1' } })), 'invalid_param', 'an object')
  t.equal(codeOf(() => collectParams(undefined, { a: null })), 'invalid_param', 'null')
  t.equal(messageOf(() => collectParams(undefined, { a: true })), 'Parameter "a" must be a plain form field in the body.')
  t.equal(messageOf(() => collectParams({ a: 1 }, undefined)), 'Parameter "a" must be a plain form field in the query.')
})

t.test('collectParams: a hostile name is shown printable and short', async t => {
  t.equal(messageOf(() => collectParams({ 'na\u00EFve\n': ['1', '2'] }, undefined)), 'Parameter "na?ve?" was sent more than once.')
  t.equal(messageOf(() => collectParams({ ['x'.repeat(50)]: ['1', '2'] }, undefined)), `Parameter "${'x'.repeat(40)}..." was sent more than once.`)
  t.equal(messageOf(() => collectParams({ ['y'.repeat(40)]: ['1', '2'] }, undefined)), `Parameter "${'y'.repeat(40)}" was sent more than once.`, '40 characters are shown whole')
})

t.test('collectParams: __proto__ and constructor cannot pollute prototypes', async t => {
  const fromQuery = collectParams(parseUrlEncoded('__proto__=x&constructor=y'), parseFormBody('prototype=z&toString=w'))
  t.equal(Object.getPrototypeOf(fromQuery), null)
  t.same(Object.keys(fromQuery).sort(), ['__proto__', 'constructor', 'prototype', 'toString'])
  t.equal(fromQuery[PROTO], 'x')
  t.equal(fromQuery.constructor, 'y')

  // JSON.parse makes __proto__ an own key, the form a JSON body could take.
  const fromJson = collectParams(undefined, JSON.parse('{"__proto__":"p","constructor":"c"}'))
  t.equal(Object.getPrototypeOf(fromJson), null)
  t.equal(fromJson[PROTO], 'p')
  t.equal(codeOf(() => collectParams(undefined, JSON.parse('{"__proto__":{"polluted":"yes"}}'))), 'invalid_param', 'an object under __proto__ is refused, not merged')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched')
  t.equal(({} as Record<string, unknown>).x, undefined)

  t.equal(codeOf(() => collectParams({ constructor: '1' }, { constructor: '2' })), 'invalid_param', 'constructor twice is still twice')
  t.equal(codeOf(() => collectParams(parseUrlEncoded('__proto__=1'), parseFormBody('__proto__=2'))), 'invalid_param', '__proto__ twice is still twice')
  t.equal(codeOf(() => collectParams({}, { toString: '1' })), 'none', 'toString is a name like any other, not one already sent')
})

t.test('requireParams, param and optional: empty counts as absent', async t => {
  const fields = params({ a: '1', empty: '' })
  t.equal(codeOf(() => requireParams(fields, ['a'])), 'none')
  t.equal(codeOf(() => requireParams(fields, ['a', 'b'])), 'missing_param')
  t.equal(messageOf(() => requireParams(fields, ['a', 'empty', 'b'])), 'Parameter "empty" is required.', 'the first absent or empty one is named')
  t.equal(messageOf(() => requireParams(fields, ['b', 'empty'])), 'Parameter "b" is required.')
  t.equal(codeOf(() => requireParams(params({}), ['constructor'])), 'missing_param', 'no inherited value stands in for a parameter')
  t.equal(param(fields, 'a'), '1')
  t.equal(optional(fields, 'a'), '1')
  t.equal(optional(fields, 'empty'), undefined)
  t.equal(optional(fields, 'missing'), undefined)
  t.equal(optional(fields, ' '), undefined)
  t.equal(optional(params({ s: ' ' }), 's'), ' ', 'a space is a value: nothing is trimmed')
})
