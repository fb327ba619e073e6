import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { storeContract } from './store-contract.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const tmp = tmpDir()
storeContract(
  'chdb',
  async () => new ChdbStore({ path: tmp.dir, poolSize: 3 }),
  async () => tmp.cleanup()
)
