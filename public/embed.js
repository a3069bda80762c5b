// The page of examples at /embed/: each example is the element as a page
// would write it, shown live for the game and key in the form (or the page's
// ?game=&api_key=&around=), beside the snippet to copy.
(() => {
  'use strict'
  const form = document.getElementById('try')
  const status = document.getElementById('try-status')
  const examples = document.getElementById('examples')
  const script = `${window.location.origin}/embed/v1/board.js`

  const EXAMPLES = [
    {
      title: 'A board',
      text: 'The top 10 of the game\'s own board, read once, scores in the board\'s format.',
      attributes: () => ({})
    },
    {
      title: 'Live, around a player',
      text: 'The top 5, following every change. With a player (the form\'s Player), their row is marked, and when they are further down, they and the two players above and below them are shown under it.',
      attributes: ({ around }) => ({ limit: '5', live: '', ...(around === '' ? {} : { around }) })
    },
    {
      title: 'Themed',
      text: 'Colours, font and corners from custom properties, the caption styled through ::part. The element follows the page\'s color-scheme; this one is dark whatever the page is.',
      className: 'themed',
      attributes: () => ({ limit: '5', heading: 'Hall of fame' }),
      // Its rules are the page's own file, shown in the snippet as they are (one copy of them).
      css: '/static/embed-theme.css'
    }
  ]

  // The text of each example's style sheet, read once.
  const sheets = new Map()
  const sheetText = (url) => {
    if (!sheets.has(url)) sheets.set(url, fetch(url).then(response => response.text()).then(text => text.trim(), () => ''))
    return sheets.get(url)
  }

  function snippet (attributes, className, css) {
    const shown = Object.entries(attributes).map(([name, value]) => value === '' ? ` ${name}` : ` ${name}="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('')
    const style = css === undefined ? '' : `<style>\n${css}\n</style>\n`
    return `<script src="${script}" defer></script>\n${style}<ranking-board${className === undefined ? '' : ` class="${className}"`}${shown}></ranking-board>`
  }

  async function show ({ game, apiKey, around }) {
    const sheetTexts = await Promise.all(EXAMPLES.map(example => example.css === undefined ? undefined : sheetText(example.css)))
    // Replaced at once, after the one wait: a later call's examples replace these whole.
    examples.replaceChildren()
    for (const [index, example] of EXAMPLES.entries()) {
      const attributes = { game, 'api-key': apiKey, ...example.attributes({ around }) }
      const section = document.createElement('section')
      section.className = 'example'
      const heading = document.createElement('h2')
      heading.textContent = example.title
      const text = document.createElement('p')
      text.textContent = example.text
      const board = document.createElement('ranking-board')
      if (example.className !== undefined) board.className = example.className
      for (const [name, value] of Object.entries(attributes)) board.setAttribute(name, value)
      const code = document.createElement('pre')
      code.textContent = snippet(attributes, example.className, sheetTexts[index])
      const copy = document.createElement('button')
      copy.type = 'button'
      copy.textContent = 'Copy'
      copy.addEventListener('click', async () => {
        try {
          await navigator.clipboard.writeText(code.textContent)
          copy.textContent = 'Copied'
        } catch {
          copy.textContent = 'Select and copy'
        }
        setTimeout(() => { copy.textContent = 'Copy' }, 2000)
      })
      const demo = document.createElement('div')
      demo.className = 'demo'
      demo.append(board)
      const source = document.createElement('div')
      source.className = 'source'
      source.append(code, copy)
      section.append(heading, text, demo, source)
      examples.append(section)
    }
  }

  const query = new URLSearchParams(window.location.search)
  form.elements.game.value = query.get('game') ?? ''
  form.elements.api_key.value = query.get('api_key') ?? ''
  form.elements.around.value = query.get('around') ?? ''
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const chosen = new URLSearchParams()
    for (const name of ['game', 'api_key', 'around']) if (form.elements[name].value !== '') chosen.set(name, form.elements[name].value)
    window.history.replaceState(null, '', `?${chosen.toString()}`)
    render()
  })

  function render () {
    const game = form.elements.game.value.trim()
    const apiKey = form.elements.api_key.value.trim()
    if (game === '' || apiKey === '') {
      status.textContent = 'Enter a game and one of its API keys (the console\'s Keys page, or the key `npm start` prints for the demo game) to see the examples with its board.'
      show({ game: 'your-game', apiKey: 'YOUR_API_KEY', around: '' })
      return
    }
    status.textContent = ''
    show({ game, apiKey, around: form.elements.around.value.trim() })
  }
  render()
})()
