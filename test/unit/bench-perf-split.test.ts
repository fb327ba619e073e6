/**
 * The perf split of the hot reads bench (bench/http/perf-split.ts): each sampled call stack, leaf first as
 * `perf script` prints it, lands in the group the bench reports.
 */
import { describe, expect, it } from 'vitest'
import { groupOf } from '../../bench/http/perf-split.js'

const HANDLER =
  'ofats::any_detail::handler_traits<...>::large_handler<uWS_App_get<uWS::TemplatedApp<false>>>::call+0xf4'

describe('perf split groups', () => {
  it('puts request work under uWS handler by whether a JavaScript frame is on the stack', () => {
    expect(
      groupOf(['Builtins_FindOrderedHashMapEntry+0x38b', 'JS:*match file:///x/dist/server/router.js:57:10', HANDLER])
    ).toBe('request JS')
    expect(groupOf(['v8::String::Utf8Length+0x1', 'node::MakeCallback+0xbe', HANDLER])).toBe('request native')
  })

  it('separates the server own work from the socket and kernel', () => {
    expect(groupOf(['JS:*pass file:///x/signal-engine.js:138:15', 'uv__run_timers+0x22', 'uv_run+0x2f4'])).toBe(
      'timers'
    )
    expect(groupOf(['JS:*fillBooks file:///x/books-load.js:99:26', 'uv__work_done+0x1', 'uv_run+0x2f4'])).toBe(
      'libuv completions'
    )
    expect(groupOf(['tcp_sendmsg_locked+0x1 ([kernel.kallsyms])', '__send+0x1 (libc.so.6)'])).toBe('socket and kernel')
    // a scavenge run as V8's foreground task is GC, not a store completion, though it wakes the loop the same way
    expect(
      groupOf([
        'v8::internal::Heap::Scavenge+0x1',
        'node::PerIsolatePlatformData::FlushForegroundTasksInternal+0x1',
        'uv__async_io.part.0+0x1'
      ])
    ).toBe('other')
  })
})
