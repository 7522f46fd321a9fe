import { Menu, nativeImage, Tray } from "electron";
import { appMenuTemplate, relayMenuItems, TRAY_ICON_DATA_URL, type RelayMenuActions } from "./menu";
import type { RelayController } from "./relay-control";

/**
 * The relay's controls in the application menu and, where the desktop has
 * one, a tray icon; both follow the relay's phase. A platform without a tray
 * (some Linux desktops) keeps the menu.
 */
export function installRelayMenus<T extends { apiBase: string }>(
  relay: RelayController<T>,
  actions: RelayMenuActions,
  log: (line: string) => void,
): { dispose(): void } {
  let tray: Tray | undefined;
  try {
    tray = new Tray(nativeImage.createFromDataURL(TRAY_ICON_DATA_URL));
    tray.setToolTip("Withdrawal Relay");
  } catch (e) {
    log(`tray icon unavailable here (${(e as Error).message}); the Relay menu has the same controls`);
  }
  const render = () => {
    const phase = relay.phase();
    const address = relay.current()?.apiBase;
    Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(phase, address, actions)));
    tray?.setContextMenu(Menu.buildFromTemplate(relayMenuItems(phase, address, actions)));
    tray?.setToolTip(`Withdrawal Relay: ${phase}`);
  };
  render();
  const off = relay.onChange(render);
  return {
    dispose: () => {
      off();
      tray?.destroy();
    },
  };
}
