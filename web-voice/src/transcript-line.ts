// A transcript line the caller cut short, on the /join page and in the widget: "(interrupted)"
// after it and, when the service told how much was heard (`heardChars`, an estimate), the rest in
// a span of its own (greyed out by the page's styles) that screen readers announce as not heard.
import type { TranscriptEntry } from './call.js';

export function markCut(item: Element, entry: TranscriptEntry): void {
  const words = [...item.childNodes].find((n) => n.nodeType === Node.TEXT_NODE);
  const heard = entry.heardChars;
  if (words && heard !== undefined && heard < entry.text.length) {
    const rest = document.createElement('span');
    rest.className = 'unheard';
    const label = document.createElement('span');
    label.className = 'sr-only';
    label.textContent = ' Not heard: ';
    rest.append(label, entry.text.slice(heard));
    words.replaceWith(document.createTextNode(entry.text.slice(0, heard)), rest);
  }
  const cut = document.createElement('span');
  cut.className = 'cut';
  cut.textContent = ' (interrupted)';
  item.append(cut);
}
