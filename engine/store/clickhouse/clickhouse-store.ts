/**
 * @module
 * The server store: a ClickHouse server (or cluster) over HTTP through @clickhouse/client, selected by
 * CLICKHOUSE_URL. Same contract as the chDB adapter; parameters are bound server-side (`query_params`).
 */
import { Readable } from 'node:stream'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { DEDUP_INSERT_SETTINGS, insertSettings, type InsertBatch, type Params, type Store } from '../store.js'
import { toStoreError } from '../store-error.js'
import { parseJsonEachRow } from '../json-rows.js'

export interface ClickhouseStoreOptions {
  /** http(s)://user:pass@host:8123/db */
  readonly url: string
  /** HTTP sockets to the server = max queries in flight. @default 8 */
  readonly maxOpenConnections?: number
}

const FORMAT_NAMES: Readonly<Record<string, string>> = { TSV: 'TabSeparated', JSONEachRow: 'JSONEachRow' }

export class ClickhouseStore implements Store {
  readonly kind = 'clickhouse' as const
  private readonly client: ClickHouseClient

  constructor(opts: ClickhouseStoreOptions) {
    this.client = createClient({
      url: opts.url,
      max_open_connections: opts.maxOpenConnections ?? 8,
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0, date_time_output_format: 'simple' }
    })
  }

  async command(sql: string, params?: Params): Promise<void> {
    try {
      await this.client.command({
        query: sql,
        ...(params ? { query_params: params } : {}),
        // DDL ON CLUSTER reports errors after the headers are sent unless the server waits
        clickhouse_settings: { wait_end_of_query: 1 }
      })
    } catch (err) {
      throw toStoreError(err)
    }
  }

  async query<T>(sql: string, params?: Params): Promise<T[]> {
    try {
      const rs = await this.client.query({
        query: sql,
        format: 'JSONEachRow',
        ...(params ? { query_params: params } : {})
      })
      return parseJsonEachRow<T>(await rs.text())
    } catch (err) {
      throw toStoreError(err)
    }
  }

  async insert(batch: InsertBatch): Promise<void> {
    const format = FORMAT_NAMES[batch.format]!
    try {
      await this.client
        .exec({
          query: `INSERT INTO ${batch.table} (${batch.columns.join(', ')}) FORMAT ${format}`,
          values: Readable.from([batch.data]),
          clickhouse_settings: {
            ...DEDUP_INSERT_SETTINGS,
            ...insertSettings(batch),
            insert_deduplication_token: batch.dedupToken
          }
        })
        .then(async (r) => {
          for await (const _ of r.stream) void _ // drain the (empty) response so the socket is reused
        })
    } catch (err) {
      throw toStoreError(err)
    }
  }

  async *stream(
    sql: string,
    params: Params | undefined,
    format: string,
    signal?: AbortSignal
  ): AsyncIterable<Uint8Array> {
    let res
    try {
      res = await this.client.exec({
        query: `${sql} FORMAT ${format}`,
        ...(params ? { query_params: params } : {}),
        ...(signal ? { abort_signal: signal } : {})
      })
    } catch (err) {
      throw toStoreError(err)
    }
    try {
      for await (const chunk of res.stream as AsyncIterable<Buffer>) yield chunk
    } catch (err) {
      throw toStoreError(err)
    } finally {
      res.stream.destroy()
    }
  }

  async close(): Promise<void> {
    await this.client.close()
  }
}
