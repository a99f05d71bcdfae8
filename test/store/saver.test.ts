/**
 * The store's answer to a write that fails (src/store/saver.ts): the latest value kept, told once when it starts
 * failing and once when it works again, tried again after 1 s doubling to 30 s, writes never overlapping, and
 * every request made while one runs covered by the next (group commit).
 */
import assert from 'node:assert/strict';
import { Saver, StoreWriteError, type RetryTimers, type SaveProblem } from '../../src/store';

class Timers implements RetryTimers {
  delays: number[] = [];
  private next: (() => void) | undefined;
  setTimeout(fn: () => void, ms: number): unknown {
    this.delays.push(ms);
    this.next = fn;
    return 1;
  }
  clearTimeout(): void {
    this.next = undefined;
  }
  fire(): void {
    const fn = this.next;
    this.next = undefined;
    fn?.();
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

function failing(code: string): Error {
  const e = new Error(`${code}: injected`) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

describe('store: a write that fails (Saver)', () => {
  it('told once when it starts failing and once when it works again; retried after 1 s doubling to 30 s', async () => {
    const timers = new Timers();
    const told: (SaveProblem | undefined)[] = [];
    let fail = true;
    let writes = 0;
    const saver = new Saver({
      file: '/x/state.json',
      timers,
      write: () => {
        writes++;
        return fail ? Promise.reject(failing('EISDIR')) : Promise.resolve();
      },
      onProblem: (p) => told.push(p),
    });
    const durable = saver.durable();
    let saved = false;
    void durable.then(() => (saved = true));
    for (let i = 0; i < 7; i++) {
      await turn();
      timers.fire();
    }
    await turn();
    assert.equal(saved, false, 'waits through the failures');
    assert.deepEqual(timers.delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    assert.equal(told.length, 1, 'told once');
    assert.deepEqual([told[0]!.file, told[0]!.code], ['/x/state.json', 'EISDIR']);
    assert.equal(saver.problem?.code, 'EISDIR');
    fail = false;
    timers.fire();
    await durable;
    assert.deepEqual(told.slice(1), [undefined], 'told once more when it works');
    assert.equal(saver.problem, undefined);
    assert.equal(writes, 9);
  });

  it('attempt() rejects with the write (StoreWriteError, CONFIG); the value is written by the retry all the same', async () => {
    const timers = new Timers();
    let fail = true;
    const written: number[] = [];
    let value = 1;
    const saver = new Saver({
      file: '/x/b.json',
      timers,
      write: () => {
        if (fail) return Promise.reject(failing('ENOSPC'));
        written.push(value);
        return Promise.resolve();
      },
    });
    await assert.rejects(saver.attempt(), (e: StoreWriteError) => {
      assert.equal(e.code, 'CONFIG');
      assert.match(e.message, /cannot save \/x\/b\.json: ENOSPC/);
      return true;
    });
    value = 2;
    fail = false;
    timers.fire();
    await saver.flush();
    assert.deepEqual(written, [2], 'the latest value');
  });

  it('writes never overlap; requests made while one runs share the next write (group commit)', async () => {
    let running = 0;
    let most = 0;
    let writes = 0;
    const saver = new Saver({
      file: '/x/c.json',
      write: async () => {
        running++;
        most = Math.max(most, running);
        writes++;
        await turn();
        running--;
      },
    });
    await Promise.all(Array.from({ length: 32 }, () => saver.attempt()));
    assert.equal(most, 1);
    assert.ok(writes <= 2, `${writes} writes for 32 requests`);
  });

  it('close() makes one last try; what still waits is told it was not saved', async () => {
    const timers = new Timers();
    const saver = new Saver({ file: '/x/d.json', timers, write: () => Promise.reject(failing('EIO')) });
    const waiting = saver.durable();
    await turn();
    await saver.close();
    await assert.rejects(waiting, /cannot save \/x\/d\.json: EIO/);
    await assert.rejects(saver.attempt(), /CLOSED/);
  });
});
