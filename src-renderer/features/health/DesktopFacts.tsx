import { useAppInfo } from "../../api/hooks";
import { CopyValue } from "../../components/CopyValue";

/** Only inside the desktop app: what the shell reports about itself (via the preload bridge). */
export function DesktopFacts() {
  const { data } = useAppInfo();
  if (!data) return null;
  return (
    <section className="panel" aria-labelledby="desktop-title">
      <h2 id="desktop-title">Desktop app</h2>
      <dl className="facts facts-compact">
        <div className="fact">
          <dt>App</dt>
          <dd>
            {data.name} {data.version}
          </dd>
        </div>
        <div className="fact">
          <dt>Electron</dt>
          <dd>
            {data.electron} (Chrome {data.chrome}, Node {data.node})
          </dd>
        </div>
        <div className="fact fact-wide">
          <dt>Data folder</dt>
          <dd>
            <CopyValue value={data.dataDir} label="data folder" display={data.dataDir} />
          </dd>
        </div>
      </dl>
    </section>
  );
}
