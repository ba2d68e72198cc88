/** The data-pointer syntax lives with the contract (the upload tool writes the same keys the API reads). */
export * from '../../../layers/contract/data-pointer.ts';
