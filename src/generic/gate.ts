/**
 * The shape of an answer read without the catalogue, checked chunk by chunk while it arrives, before anything is
 * built from it. fast-xml-parser reads a whole document at once and keeps every element as a few
 * objects: bounded only by maxResponseBytes, a 23 MB answer of tiny elements grew to more than a 1 GiB heap. Here
 * the package's streaming tokenizer (src/soap/xml-scanner.ts, the typed path's) reads each chunk as it comes and
 * counts elements, nesting and text; the first limit passed stops the read (the transport aborts the request) with
 * an error naming it. It also checks that the document is well-formed and has no DTD, so what reaches the parser
 * is a bounded, well-formed document. Memory: the scanner's open-element names and one counter per level.
 */
import { ByteTextChunks, utf8Of } from '../soap/utf8-chunks';
import { XmlScanner, type ScanHandler } from '../soap/xml-scanner';
import { count } from '../count';
import { LimitExceeded, type InvokeLimits } from './limits';

export class AnswerGate implements ScanHandler {
  private readonly scanner = new XmlScanner(this);
  private readonly bytes = new ByteTextChunks();
  private elements = 0;
  private depth = 0;
  /** Text bytes read so far of each open element, by depth. */
  private readonly texts: number[] = [];
  /** Text bytes of the whole answer. */
  private decoded = 0;
  /** Handler calls so far: a write without one left everything it got in the scanner's held token. */
  private events = 0;
  /** Bytes given to the scanner since the write of its last event: more than it can hold in one token. */
  private quiet = 0;

  constructor(private readonly limits: Readonly<InvokeLimits>) {}

  /** Checks the next chunk of the body; throws at the first limit passed or malformed markup. */
  write(chunk: Uint8Array): void {
    this.feed(this.bytes.decode(chunk));
  }

  /** Checks the rest and that the document is complete. */
  end(): void {
    this.feed(this.bytes.end());
    this.guard(() => this.scanner.end());
  }

  private feed(text: string): void {
    if (text === '') return;
    const before = this.events;
    this.guard(() => this.scanner.write(text));
    // A start tag, comment, CDATA section or processing instruction is held whole until it ends: one longer
    // than any text may be is refused before the scanner holds (and rescans) more of it.
    this.quiet = this.events === before ? this.quiet + text.length : text.length;
    if (this.quiet > this.limits.maxTextLength) {
      throw new LimitExceeded(
        `markup of more than ${count(this.limits.maxTextLength)} bytes without an end`,
        'maxTextLength',
      );
    }
  }

  /** The scanner works on byte text: names in its messages are turned back into characters. */
  private guard(scan: () => void): void {
    try {
      scan();
    } catch (e) {
      if (e instanceof LimitExceeded || !(e instanceof Error)) throw e;
      throw new Error(utf8Of(e.message), { cause: e });
    }
  }

  open(_name: string, attrs: string[] | null): void {
    this.events++;
    if (++this.elements > this.limits.maxElements) {
      throw new LimitExceeded(`more than ${count(this.limits.maxElements)} elements`, 'maxElements');
    }
    if (++this.depth > this.limits.maxDepth) {
      throw new LimitExceeded(
        `elements nested deeper than ${count(this.limits.maxDepth)} levels`,
        'maxDepth',
      );
    }
    this.texts[this.depth - 1] = 0;
    if (attrs !== null) {
      for (let i = 1; i < attrs.length; i += 2) this.checkText((attrs[i] as string).length);
    }
  }

  close(): void {
    this.events++;
    this.depth--;
  }

  text(_s: string, start: number, end: number): void {
    this.events++;
    this.addText(end - start);
  }

  cdata(text: string): void {
    this.events++;
    this.addText(text.length);
  }

  /** Text of the innermost open element (its runs between child elements added up). */
  private addText(n: number): void {
    const i = this.depth - 1;
    const total = (this.texts[i] as number) + n;
    this.texts[i] = total;
    this.checkText(total);
    this.decoded += n;
    if (this.decoded > this.limits.maxDecodedLength) {
      throw new LimitExceeded(
        `more than ${count(this.limits.maxDecodedLength)} bytes of text`,
        'maxDecodedLength',
      );
    }
  }

  private checkText(n: number): void {
    if (n > this.limits.maxTextLength) {
      throw new LimitExceeded(
        `a text or attribute value of more than ${count(this.limits.maxTextLength)} bytes`,
        'maxTextLength',
      );
    }
  }
}
