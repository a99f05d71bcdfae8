import type { Catalogue } from '../../catalogue/catalogue';
import type { TypeRef } from '../../catalogue/types';
import { escapeText } from '../../soap/escape';
import type { SoapVersion } from './ns';
import { dotnetDefault, isValueType, scalarText } from './serialize';

/**
 * SOAP section-5 (RPC/encoded) values, as ASMX writes them (§5.2): unqualified accessors with xsi:type,
 * class and array values as `href`/`id` multi-refs after the wrapper on SOAP 1.1, inline with `soapenc:id` on 1.2.
 */

const isNull = (type: TypeRef, value: unknown): boolean =>
  value === undefined || (value === null && !(type.kind === 'primitive' && type.name === 'dateTime'));

export function encodedTypeName(type: TypeRef): string {
  switch (type.kind) {
    case 'primitive':
      return `xsd:${type.name}`;
    case 'enum':
    case 'complex':
      return `types:${type.name}`;
    case 'list':
      return `soapenc:Array`;
  }
}

const arrayItemName = (type: TypeRef): string => encodedTypeName(type);

export class EncodedWriter {
  private nextId = 1;
  /** SOAP 1.1 multi-ref values, in order of first reference, written after the wrapper as siblings in Body. */
  private readonly refs: string[] = [];

  get trailer(): string {
    return this.refs.join('');
  }

  constructor(
    private readonly version: SoapVersion,
    private readonly catalogue: Catalogue,
  ) {}

  accessor(name: string, type: TypeRef, value: unknown, typed = true): string {
    if (isNull(type, value)) return `<${name} xsi:nil="true" />`;
    if (type.kind === 'primitive' || type.kind === 'enum') {
      const text = escapeText(scalarText(type, value));
      const t = typed ? ` xsi:type="${encodedTypeName(type)}"` : '';
      return text ? `<${name}${t}>${text}</${name}>` : `<${name}${t} />`;
    }
    const id = `id${this.nextId++}`;
    if (this.version === '1.1') {
      const tag = type.kind === 'complex' ? `types:${type.name}` : 'soapenc:Array';
      const slot = this.refs.push('') - 1;
      this.refs[slot] = this.value(tag, type, value, ` id="${id}"`);
      return `<${name} href="#${id}" />`;
    }
    return this.value(name, type, value, ` soapenc:id="${id}"`);
  }

  private value(tag: string, type: TypeRef, value: unknown, idAttr: string): string {
    if (type.kind === 'complex') {
      const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      let inner = '';
      for (const f of this.catalogue.complexType(type.name).fields) {
        // As in literal: a value-type field is always written (its default when unset).
        const v =
          record[f.name] === undefined && isValueType(f.type)
            ? dotnetDefault(f.type, this.catalogue)
            : record[f.name];
        if (v === undefined) continue;
        inner += this.accessor(f.name, f.type, v);
      }
      return `<${tag}${idAttr} xsi:type="types:${type.name}">${inner}</${tag}>`;
    }
    if (type.kind === 'list') {
      const items = Array.isArray(value) ? value : [];
      const itemType = arrayItemName(type.item);
      const attrs =
        this.version === '1.1'
          ? ` soapenc:arrayType="${itemType}[${items.length}]"`
          : ` soapenc:itemType="${itemType}" soapenc:arraySize="${items.length}"`;
      const scalarItems = type.item.kind === 'primitive';
      const inner = items.map((item) => this.accessor('Item', type.item, item, !scalarItems)).join('');
      return inner ? `<${tag}${idAttr}${attrs}>${inner}</${tag}>` : `<${tag}${idAttr}${attrs} />`;
    }
    return '';
  }
}
