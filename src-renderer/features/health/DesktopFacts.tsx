import { useAppInfo } from "../../api/hooks";
import { CopyValue } from "../../components/CopyValue";
import { Fact, Facts } from "../../components/Facts";
import { Panel } from "../../components/Panel";

/** Only inside the desktop app: what the shell reports about itself (via the preload bridge). */
export function DesktopFacts() {
  const { data } = useAppInfo();
  if (!data) return null;
  return (
    <Panel id="desktop-title" title="Desktop app">
      <Facts compact>
        <Fact label="App">
          {data.name} {data.version}
        </Fact>
        <Fact label="Electron">
          {data.electron} (Chrome {data.chrome}, Node {data.node})
        </Fact>
        <Fact label="Data folder" wide>
          <CopyValue value={data.dataDir} label="data folder" display={data.dataDir} />
        </Fact>
      </Facts>
    </Panel>
  );
}
