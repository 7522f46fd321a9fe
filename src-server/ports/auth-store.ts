export interface StoredToken {
  id: string;
  wallet: string;
  expiresAt: number;
}

export interface AuthStore {
  /** Records a (wallet, message) login; false when it was seen before (a replay). Atomic. */
  consumeLogin(wallet: string, message: number, forgetAfter: number): Promise<boolean>;
  saveToken(token: StoredToken, createdAt: number): Promise<void>;
  findToken(id: string): Promise<StoredToken | null>;
  /** Drops expired tokens and login records that can no longer be replayed. */
  prune(nowSec: number): Promise<void>;
}
