/**
 * Node intelligence's routes on an in-process app, wired from `env` as the server wires them (its module,
 * chain clients, a supervisor), with a `pro` key.
 */
import { ChainClients } from '../../../engine/chain/chain-clients.js'
import { silentLogger } from '../../../engine/log.js'
import { nodeIntelConfig } from '../../../engine/nodeintel/config.js'
import { Supervisor } from '../../../engine/runtime/supervisor.js'
import { NodeIntelModule } from '../../../server/modules/node-intel.js'
import { routeApp, type RouteApp } from '../route-app.js'

export async function nodeIntelApp(
  env: Record<string, string>
): Promise<{ app: RouteApp; key: string; clients: ChainClients }> {
  const clients = ChainClients.fromEnv(env)
  const wiring = new NodeIntelModule(nodeIntelConfig(env), clients, silentLogger(), new Supervisor(silentLogger()))
  const app = routeApp(wiring.routes())
  return { app, key: await app.key('pro'), clients }
}
