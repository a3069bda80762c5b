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
      css: `ranking-board.themed {
  color-scheme: dark;
  --ranking-board-background: #10162f;
  --ranking-board-color: #f4f1de;
  --ranking-board-border: #3d5a80;
  --ranking-board-highlight: #3d5a80;
  --ranking-board-radius: 1rem;
  --ranking-board-font: 15px/1.4 Georgia, serif;
}
ranking-board.themed::part(caption) { color: #ee6c4d; letter-spacing: 0.05em; text-transform: uppercase; }`
    }
  ]

  function snippet (attributes, className, css) {
    const shown = Object.entries(attributes).map(([name, value]) => value === '' ? ` ${name}` : ` ${name}="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('')
    const style = css === undefined ? '' : `<style>\n${css}\n</style>\n`
    return `<script src="${script}" defer></script>\n${style}<ranking-board${className === undefined ? '' : ` class="${className}"`}${shown}></ranking-board>`
  }

  function show ({ game, apiKey, around }) {
    examples.replaceChildren()
    for (const example of EXAMPLES) {
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
      code.textContent = snippet(attributes, example.className, example.css)
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
