import { describe, it } from 'vitest'
import { ClickhouseStore } from '../../engine/store/clickhouse/clickhouse-store.js'
import { storeContract } from './store-contract.js'

// Runs only against a real server: CLICKHOUSE_URL=http://user:pass@host:8123/db npm test
const url = process.env['CLICKHOUSE_URL']
if (url) storeContract('clickhouse server', async () => new ClickhouseStore({ url }))
else describe.skip('Store contract: clickhouse server (set CLICKHOUSE_URL to run)', () => it('skipped', () => {}))
